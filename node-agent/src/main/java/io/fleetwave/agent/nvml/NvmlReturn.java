package io.fleetwave.agent.nvml;

import java.util.Map;

/** NVML return codes (nvmlReturn_t) by name, for messages that say what happened. */
public final class NvmlReturn {
  public static final int SUCCESS = 0;
  public static final int ERROR_INVALID_ARGUMENT = 2;
  public static final int ERROR_NOT_SUPPORTED = 3;
  public static final int ERROR_NOT_FOUND = 6;
  public static final int ERROR_INSUFFICIENT_SIZE = 7;
  public static final int ERROR_FUNCTION_NOT_FOUND = 13;

  private static final Map<Integer, String> NAMES =
      Map.ofEntries(
          Map.entry(0, "NVML_SUCCESS"),
          Map.entry(1, "NVML_ERROR_UNINITIALIZED"),
          Map.entry(2, "NVML_ERROR_INVALID_ARGUMENT"),
          Map.entry(3, "NVML_ERROR_NOT_SUPPORTED"),
          Map.entry(4, "NVML_ERROR_NO_PERMISSION"),
          Map.entry(5, "NVML_ERROR_ALREADY_INITIALIZED"),
          Map.entry(6, "NVML_ERROR_NOT_FOUND"),
          Map.entry(7, "NVML_ERROR_INSUFFICIENT_SIZE"),
          Map.entry(8, "NVML_ERROR_INSUFFICIENT_POWER"),
          Map.entry(9, "NVML_ERROR_DRIVER_NOT_LOADED"),
          Map.entry(10, "NVML_ERROR_TIMEOUT"),
          Map.entry(11, "NVML_ERROR_IRQ_ISSUE"),
          Map.entry(12, "NVML_ERROR_LIBRARY_NOT_FOUND"),
          Map.entry(13, "NVML_ERROR_FUNCTION_NOT_FOUND"),
          Map.entry(14, "NVML_ERROR_CORRUPTED_INFOROM"),
          Map.entry(15, "NVML_ERROR_GPU_IS_LOST"),
          Map.entry(16, "NVML_ERROR_RESET_REQUIRED"),
          Map.entry(17, "NVML_ERROR_OPERATING_SYSTEM"),
          Map.entry(18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH"),
          Map.entry(19, "NVML_ERROR_IN_USE"),
          Map.entry(20, "NVML_ERROR_MEMORY"),
          Map.entry(21, "NVML_ERROR_NO_DATA"),
          Map.entry(22, "NVML_ERROR_VGPU_ECC_NOT_ENABLED"),
          Map.entry(23, "NVML_ERROR_INSUFFICIENT_RESOURCES"),
          Map.entry(24, "NVML_ERROR_FREQ_NOT_SUPPORTED"),
          Map.entry(25, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH"),
          Map.entry(26, "NVML_ERROR_DEPRECATED"),
          Map.entry(27, "NVML_ERROR_NOT_READY"),
          Map.entry(28, "NVML_ERROR_GPU_NOT_FOUND"),
          Map.entry(29, "NVML_ERROR_INVALID_STATE"),
          Map.entry(999, "NVML_ERROR_UNKNOWN"));

  private NvmlReturn() {}

  public static String name(int code) {
    return NAMES.getOrDefault(code, "NVML_ERROR_" + code);
  }
}
