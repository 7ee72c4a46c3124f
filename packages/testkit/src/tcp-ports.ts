import { readdir, readFile, readlink } from "node:fs/promises";

/**
 * The local ports of the TCP sockets a process holds, read from /proc (Linux): its file
 * descriptors' socket inodes matched against its network namespace's socket tables. With
 * `wholeNamespace` every socket of the namespace counts (a container that runs one process).
 * A test tells by them which process a connection it received came from.
 */
export async function tcpPortsOf(pid: number, wholeNamespace = false): Promise<Set<number>> {
  const inodes = new Set<string>();
  if (!wholeNamespace) {
    for (const fd of await readdir(`/proc/${pid}/fd`)) {
      const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m) inodes.add(m[1]!);
    }
  }
  const ports = new Set<number>();
  for (const table of ["tcp", "tcp6"]) {
    const text = await readFile(`/proc/${pid}/net/${table}`, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      if (!wholeNamespace && !inodes.has(cols[9]!)) continue;
      ports.add(parseInt(cols[1]!.split(":")[1]!, 16));
    }
  }
  return ports;
}
