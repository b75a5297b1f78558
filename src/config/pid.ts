// Whether a process recorded in a lock or record file still runs on this machine.

/** Signal 0 checks without signalling; EPERM means it runs as someone else: alive. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
