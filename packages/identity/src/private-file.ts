import type { Stats } from 'node:fs';

/**
 * Whether a file of secrets is readable or writable by users other than its owner. Read by the file's group is
 * allowed when the process is in that group and nobody may write through it: Kubernetes mounts a Secret owned by
 * root and readable by the pod's fsGroup (mode 0440), which the service's user is in and no other user is.
 */
export function othersMayReach(stats: Stats, groups: readonly number[] = processGroups()): boolean {
  const mode = stats.mode & 0o777;
  if ((mode & 0o027) !== 0) return true;
  return (mode & 0o040) !== 0 && !groups.includes(stats.gid);
}

const processGroups = () => [process.getgid?.() ?? -1, ...(process.getgroups?.() ?? [])];
