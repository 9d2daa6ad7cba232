package io.fleetwave.agent.sriov;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * vGPU types of one VF through {@code sys/bus/pci/devices/<VF>/nvidia}: {@code
 * creatable_vgpu_types} lists {@code ID : NAME} lines (after a header), {@code current_vgpu_type}
 * holds the id written, 0 for none. The creatable list shrinks as types are placed, so it is read
 * again before every write.
 */
public final class VgpuSysfs {
  private final PciSysfs pci;

  public VgpuSysfs(Path hostRoot) {
    this.pci = new PciSysfs(hostRoot);
  }

  /** One line of creatable_vgpu_types. */
  public record VgpuTypeEntry(int id, String name) {}

  public List<VgpuTypeEntry> creatableTypes(String vfBdf) {
    Path file = nvidiaDir(vfBdf).resolve("creatable_vgpu_types");
    String text = read(file);
    List<VgpuTypeEntry> types = new ArrayList<>();
    for (String line : text.lines().toList()) {
      int colon = line.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String id = line.substring(0, colon).strip();
      if (!id.chars().allMatch(Character::isDigit) || id.isEmpty()) {
        continue; // the "ID    : vGPU Name" header
      }
      types.add(new VgpuTypeEntry(Integer.parseInt(id), line.substring(colon + 1).strip()));
    }
    return List.copyOf(types);
  }

  /** The vGPU type id written to the VF, 0 for none. */
  public int currentType(String vfBdf) {
    Path file = nvidiaDir(vfBdf).resolve("current_vgpu_type");
    String value = read(file).strip();
    try {
      return value.isEmpty() ? 0 : Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new SriovException(
          "VF " + vfBdf + ": " + file + " holds '" + value + "', not a type id");
    }
  }

  /** Writes a type id to the VF ({@code 0} removes its vGPU); refused unless creatable now. */
  public void setType(String vfBdf, int typeId) {
    if (typeId != 0) {
      List<VgpuTypeEntry> creatable = creatableTypes(vfBdf);
      if (creatable.stream().noneMatch(t -> t.id() == typeId)) {
        throw new SriovException(
            "VF "
                + PciSysfs.normalize(vfBdf)
                + ": vGPU type "
                + typeId
                + " is not creatable here; creatable: "
                + (creatable.isEmpty()
                    ? "none"
                    : creatable.stream()
                        .map(t -> t.id() + " (" + t.name() + ")")
                        .collect(Collectors.joining(", "))));
      }
    }
    Path file = nvidiaDir(vfBdf).resolve("current_vgpu_type");
    try {
      Files.writeString(file, Integer.toString(typeId));
    } catch (IOException e) {
      throw new SriovException("VF " + vfBdf + ": cannot write " + typeId + " to " + file, e);
    }
  }

  private Path nvidiaDir(String vfBdf) {
    Path dir = pci.device(vfBdf).resolve("nvidia");
    if (!Files.isDirectory(dir)) {
      throw new SriovException(
          "VF " + PciSysfs.normalize(vfBdf) + ": no nvidia vGPU directory (" + dir + ")");
    }
    return dir;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new SriovException("cannot read " + file, e);
    }
  }
}
