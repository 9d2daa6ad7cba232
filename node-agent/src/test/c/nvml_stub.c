/*
 * A stand-in libnvidia-ml.so.1 for tests: the subset of the NVML C API the agent binds, over
 * in-memory state. Three GPUs: 0 = A100-SXM4-40GB (MIG mode change pending until reset),
 * 1 = H100 80GB HBM3 (MIG mode change immediate), 2 = L4 (no MIG). Seven-slice MIG geometry:
 * GPU-instance profile index -> (id, compute slices, memory slices, max count, valid starts).
 * Written for Fleetwave's tests from the public NVML documentation; signatures follow nvml.h.
 * Functions prefixed fleetwaveStub are test controls, not NVML.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef int nvmlReturn_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_IN_USE 19
#define NVML_ERROR_INSUFFICIENT_RESOURCES 23
#define NVML_ERROR_INVALID_STATE 29

typedef struct { char busIdLegacy[16]; unsigned domain, bus, device, pciDeviceId, pciSubSystemId; char busId[32]; } nvmlPciInfo_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned start, size; } nvmlGpuInstancePlacement_t;
typedef struct {
  unsigned id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount, copyEngineCount,
      decoderCount, encoderCount, jpegCount, ofaCount;
  unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t;
typedef struct {
  unsigned id, sliceCount, instanceCount, multiprocessorCount, sharedCopyEngineCount,
      sharedDecoderCount, sharedEncoderCount, sharedJpegCount, sharedOfaCount;
} nvmlComputeInstanceProfileInfo_t;
typedef struct { unsigned pid; unsigned long long usedGpuMemory; unsigned gpuInstanceId, computeInstanceId; } nvmlProcessInfo_t;

struct gpu;
typedef struct ci { int used; unsigned id, profileId; struct gi *gi; } ci_t;
typedef struct gi { int used; unsigned id, profileIndex, start, size; struct gpu *gpu; ci_t cis[8]; } gi_t;
typedef struct gpu {
  const char *uuid, *name, *busId; unsigned bus, pciDeviceId, minor; unsigned long long memMiB;
  int migCapable, needsReset; unsigned migCurrent, migPending; gi_t gis[8]; unsigned giNext;
  nvmlProcessInfo_t procs[8]; unsigned procCount;
} gpu_t;

typedef gpu_t *nvmlDevice_t;
typedef gi_t *nvmlGpuInstance_t;
typedef ci_t *nvmlComputeInstance_t;

typedef struct { unsigned id, compute, memory, max, startsMask; } profile_t;
/* index: 0=1g 1=2g 2=3g 3=4g 4=7g 5,6=none 7=1g+me 8=none 9=1g double memory */
static const profile_t PROFILES[10] = {
  {19, 1, 1, 7, 0x7F}, {14, 2, 2, 3, 0x15}, {9, 3, 4, 2, 0x11}, {5, 4, 4, 1, 0x01}, {0, 7, 8, 1, 0x01},
  {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {20, 1, 1, 1, 0x7F}, {0, 0, 0, 0, 0}, {15, 1, 2, 4, 0x55}};
#define PROFILE_COUNT 10

static gpu_t GPUS[3];
static int initCount = 0;

static void reset_state(void) {
  memset(GPUS, 0, sizeof GPUS);
  GPUS[0] = (gpu_t){"GPU-a100-0000", "NVIDIA A100-SXM4-40GB", "00000000:07:00.0", 0x07, 0x20B010DE, 0, 40960, 1, 1, 0, 0};
  GPUS[1] = (gpu_t){"GPU-h100-0001", "NVIDIA H100 80GB HBM3", "00000000:3B:00.0", 0x3B, 0x233010DE, 1, 81559, 1, 0, 0, 0};
  GPUS[2] = (gpu_t){"GPU-l4-0002", "NVIDIA L4", "00000000:86:00.0", 0x86, 0x27B810DE, 2, 23034, 0, 0, 0, 0};
}

nvmlReturn_t nvmlInit_v2(void) { if (initCount++ == 0 && GPUS[0].uuid == NULL) reset_state(); return NVML_SUCCESS; }
nvmlReturn_t nvmlShutdown(void) { if (initCount == 0) return NVML_ERROR_UNINITIALIZED; initCount--; return NVML_SUCCESS; }

const char *nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_IN_USE: return "In use by another client";
    case NVML_ERROR_INSUFFICIENT_RESOURCES: return "Ran out of critical resources, other than memory";
    case NVML_ERROR_INVALID_STATE: return "Invalid state";
    default: return "Unknown Error";
  }
}

#define REQUIRE_INIT() do { if (initCount == 0) return NVML_ERROR_UNINITIALIZED; } while (0)
#define REQUIRE(p) do { if (!(p)) return NVML_ERROR_INVALID_ARGUMENT; } while (0)

static nvmlReturn_t copy_string(const char *s, char *buf, unsigned len) {
  if (strlen(s) + 1 > len) return NVML_ERROR_INSUFFICIENT_SIZE;
  strcpy(buf, s);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned len) { REQUIRE_INIT(); REQUIRE(v); return copy_string("580.95.05", v, len); }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n) { REQUIRE_INIT(); REQUIRE(n); *n = 3; return NVML_SUCCESS; }
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d) { REQUIRE_INIT(); REQUIRE(d && i < 3); *d = &GPUS[i]; return NVML_SUCCESS; }
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned len) { REQUIRE_INIT(); REQUIRE(d && buf); return copy_string(d->uuid, buf, len); }
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned len) { REQUIRE_INIT(); REQUIRE(d && buf); return copy_string(d->name, buf, len); }
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned *m) { REQUIRE_INIT(); REQUIRE(d && m); *m = d->minor; return NVML_SUCCESS; }

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p) {
  REQUIRE_INIT(); REQUIRE(d && p);
  memset(p, 0, sizeof *p);
  snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "0000:%02X:00.0", d->bus);
  p->domain = 0; p->bus = d->bus; p->device = 0; p->pciDeviceId = d->pciDeviceId; p->pciSubSystemId = 0x147E10DE;
  strcpy(p->busId, d->busId);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
  REQUIRE_INIT(); REQUIRE(d && m);
  m->total = d->memMiB * 1024ULL * 1024ULL; m->used = 512ULL * 1024 * 1024; m->free = m->total - m->used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned *cur, unsigned *pend) {
  REQUIRE_INIT(); REQUIRE(d && cur && pend);
  if (!d->migCapable) return NVML_ERROR_NOT_SUPPORTED;
  *cur = d->migCurrent; *pend = d->migPending;
  return NVML_SUCCESS;
}

/* A driver that stops answering: while armed, nvmlDeviceSetMigMode blocks until released. */
static pthread_mutex_t hangLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hangReleased = PTHREAD_COND_INITIALIZER;
static int hangArmed;
static int hungCalls;
static void hang_point(void) {
  pthread_mutex_lock(&hangLock);
  if (hangArmed) hungCalls++;
  while (hangArmed) pthread_cond_wait(&hangReleased, &hangLock);
  pthread_mutex_unlock(&hangLock);
}

nvmlReturn_t nvmlDeviceSetMigMode(nvmlDevice_t d, unsigned mode, nvmlReturn_t *activation) {
  hang_point();
  REQUIRE_INIT(); REQUIRE(d && activation && mode <= 1);
  if (!d->migCapable) return NVML_ERROR_NOT_SUPPORTED;
  if (d->procCount > 0) return NVML_ERROR_IN_USE;
  d->migPending = mode;
  if (d->needsReset && d->migCurrent != mode) { *activation = NVML_ERROR_IN_USE; }
  else { d->migCurrent = mode; *activation = NVML_SUCCESS; }
  if (d->migCurrent == 0) memset(d->gis, 0, sizeof d->gis);
  return NVML_SUCCESS;
}

static int profile_index_by_id(unsigned id) {
  for (int i = 0; i < PROFILE_COUNT; i++) if (PROFILES[i].max && PROFILES[i].id == id) return i;
  return -1;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t d, unsigned profile, nvmlGpuInstanceProfileInfo_t *info) {
  REQUIRE_INIT(); REQUIRE(d && info);
  if (!d->migCapable) return NVML_ERROR_NOT_SUPPORTED;
  if (profile >= PROFILE_COUNT || PROFILES[profile].max == 0) return NVML_ERROR_INVALID_ARGUMENT;
  const profile_t *p = &PROFILES[profile];
  memset(info, 0, sizeof *info);
  info->id = p->id; info->sliceCount = p->compute; info->instanceCount = p->max;
  info->multiprocessorCount = 14 * p->compute; info->copyEngineCount = p->compute;
  info->memorySizeMB = (d->memMiB / 8) * p->memory;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(nvmlDevice_t d, unsigned profileId, nvmlGpuInstancePlacement_t *pl, unsigned *count) {
  REQUIRE_INIT(); REQUIRE(d && count);
  if (!d->migCapable) return NVML_ERROR_NOT_SUPPORTED;
  int idx = profile_index_by_id(profileId);
  if (idx < 0) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned n = 0;
  for (unsigned s = 0; s < 8; s++) {
    if (!(PROFILES[idx].startsMask & (1u << s))) continue;
    if (pl) { if (n >= *count) return NVML_ERROR_INSUFFICIENT_SIZE; pl[n].start = s; pl[n].size = PROFILES[idx].memory; }
    n++;
  }
  *count = n;
  return NVML_SUCCESS;
}

static nvmlReturn_t place(gpu_t *d, int idx, unsigned start, gi_t **out) {
  const profile_t *p = &PROFILES[idx];
  if (!(p->startsMask & (1u << start))) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned used = 0, compute = 0, same = 0;
  gi_t *slot = NULL;
  for (int i = 0; i < 8; i++) {
    gi_t *g = &d->gis[i];
    if (!g->used) { if (!slot) slot = g; continue; }
    used |= ((1u << g->size) - 1) << g->start;
    compute += PROFILES[g->profileIndex].compute;
    if ((int)g->profileIndex == idx) same++;
  }
  unsigned want = ((1u << p->memory) - 1) << start;
  if ((used & want) || compute + p->compute > 7 || same >= p->max || !slot) return NVML_ERROR_INSUFFICIENT_RESOURCES;
  memset(slot, 0, sizeof *slot);
  slot->used = 1; slot->id = ++d->giNext; slot->profileIndex = idx; slot->start = start; slot->size = p->memory; slot->gpu = d;
  *out = slot;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceCreateGpuInstanceWithPlacement(nvmlDevice_t d, unsigned profileId, const nvmlGpuInstancePlacement_t *pl, nvmlGpuInstance_t *gi) {
  REQUIRE_INIT(); REQUIRE(d && pl && gi);
  if (!d->migCapable) return NVML_ERROR_NOT_SUPPORTED;
  if (d->migCurrent != 1) return NVML_ERROR_INVALID_STATE;
  int idx = profile_index_by_id(profileId);
  if (idx < 0 || pl->size != PROFILES[idx].memory) return NVML_ERROR_INVALID_ARGUMENT;
  return place(d, idx, pl->start, gi);
}

nvmlReturn_t nvmlDeviceCreateGpuInstance(nvmlDevice_t d, unsigned profileId, nvmlGpuInstance_t *gi) {
  REQUIRE_INIT(); REQUIRE(d && gi);
  if (!d->migCapable) return NVML_ERROR_NOT_SUPPORTED;
  if (d->migCurrent != 1) return NVML_ERROR_INVALID_STATE;
  int idx = profile_index_by_id(profileId);
  if (idx < 0) return NVML_ERROR_INVALID_ARGUMENT;
  for (unsigned s = 0; s < 8; s++)
    if ((PROFILES[idx].startsMask & (1u << s)) && place(d, idx, s, gi) == NVML_SUCCESS) return NVML_SUCCESS;
  return NVML_ERROR_INSUFFICIENT_RESOURCES;
}

nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t d, unsigned profileId, nvmlGpuInstance_t *gis, unsigned *count) {
  REQUIRE_INIT(); REQUIRE(d && count);
  if (!d->migCapable) return NVML_ERROR_NOT_SUPPORTED;
  int idx = profile_index_by_id(profileId);
  if (idx < 0) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned n = 0;
  for (int i = 0; i < 8; i++) {
    if (!d->gis[i].used || (int)d->gis[i].profileIndex != idx) continue;
    if (gis) { if (n >= *count) return NVML_ERROR_INSUFFICIENT_SIZE; gis[n] = &d->gis[i]; }
    n++;
  }
  *count = n;
  return NVML_SUCCESS;
}

typedef struct { nvmlDevice_t device; unsigned id, profileId; nvmlGpuInstancePlacement_t placement; } nvmlGpuInstanceInfo_t;

nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gi, nvmlGpuInstanceInfo_t *info) {
  REQUIRE_INIT(); REQUIRE(gi && gi->used && info);
  info->device = gi->gpu; info->id = gi->id; info->profileId = PROFILES[gi->profileIndex].id;
  info->placement.start = gi->start; info->placement.size = gi->size;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t gi) {
  REQUIRE_INIT(); REQUIRE(gi && gi->used);
  for (int i = 0; i < 8; i++) if (gi->cis[i].used) return NVML_ERROR_IN_USE;
  gi->used = 0;
  return NVML_SUCCESS;
}

/* Compute-instance profile index -> compute slices: 0=1 1=2 2=3 3=4 4=7. Ids are 100 + index. */
static const unsigned CI_SLICES[5] = {1, 2, 3, 4, 7};

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gi, unsigned profile, unsigned engProfile, nvmlComputeInstanceProfileInfo_t *info) {
  REQUIRE_INIT(); REQUIRE(gi && gi->used && info && engProfile == 0);
  if (profile >= 5 || CI_SLICES[profile] > PROFILES[gi->profileIndex].compute) return NVML_ERROR_NOT_SUPPORTED;
  memset(info, 0, sizeof *info);
  info->id = 100 + profile; info->sliceCount = CI_SLICES[profile];
  info->instanceCount = PROFILES[gi->profileIndex].compute / CI_SLICES[profile];
  info->multiprocessorCount = 14 * CI_SLICES[profile];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t gi, unsigned profileId, nvmlComputeInstance_t *ci) {
  REQUIRE_INIT(); REQUIRE(gi && gi->used && ci);
  if (profileId < 100 || profileId >= 105) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned slices = 0;
  for (int i = 0; i < 8; i++) if (gi->cis[i].used) slices += CI_SLICES[gi->cis[i].profileId - 100];
  if (slices + CI_SLICES[profileId - 100] > PROFILES[gi->profileIndex].compute) return NVML_ERROR_INSUFFICIENT_RESOURCES;
  for (int i = 0; i < 8; i++) {
    if (gi->cis[i].used) continue;
    gi->cis[i] = (ci_t){1, (unsigned)i, profileId, gi};
    *ci = &gi->cis[i];
    return NVML_SUCCESS;
  }
  return NVML_ERROR_INSUFFICIENT_RESOURCES;
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gi, unsigned profileId, nvmlComputeInstance_t *cis, unsigned *count) {
  REQUIRE_INIT(); REQUIRE(gi && gi->used && count);
  unsigned n = 0;
  for (int i = 0; i < 8; i++) {
    if (!gi->cis[i].used || gi->cis[i].profileId != profileId) continue;
    if (cis) { if (n >= *count) return NVML_ERROR_INSUFFICIENT_SIZE; cis[n] = &gi->cis[i]; }
    n++;
  }
  *count = n;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlComputeInstanceDestroy(nvmlComputeInstance_t ci) {
  REQUIRE_INIT(); REQUIRE(ci && ci->used);
  ci->used = 0;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned *count, nvmlProcessInfo_t *infos) {
  REQUIRE_INIT(); REQUIRE(d && count);
  if (*count < d->procCount) { *count = d->procCount; return NVML_ERROR_INSUFFICIENT_SIZE; }
  for (unsigned i = 0; i < d->procCount; i++) infos[i] = d->procs[i];
  *count = d->procCount;
  return NVML_SUCCESS;
}

/* ---- test controls ---- */
void fleetwaveStubHangSetMigMode(void) {
  pthread_mutex_lock(&hangLock); hangArmed = 1; hungCalls = 0; pthread_mutex_unlock(&hangLock);
}
void fleetwaveStubReleaseHang(void) {
  pthread_mutex_lock(&hangLock); hangArmed = 0; pthread_cond_broadcast(&hangReleased); pthread_mutex_unlock(&hangLock);
}
/* How many calls entered nvmlDeviceSetMigMode while it hung. */
int fleetwaveStubHungCalls(void) {
  pthread_mutex_lock(&hangLock); int n = hungCalls; pthread_mutex_unlock(&hangLock); return n;
}
void fleetwaveStubResetState(void) { reset_state(); }
void fleetwaveStubAddProcess(unsigned gpu, unsigned pid, unsigned long long bytes) {
  gpu_t *d = &GPUS[gpu];
  d->procs[d->procCount++] = (nvmlProcessInfo_t){pid, bytes, 0xFFFFFFFFu, 0xFFFFFFFFu};
}
/* What a GPU reset does to MIG mode: the pending mode becomes current, instances go. */
void fleetwaveStubCommitReset(unsigned gpu) {
  gpu_t *d = &GPUS[gpu];
  d->migCurrent = d->migPending;
  memset(d->gis, 0, sizeof d->gis);
}
