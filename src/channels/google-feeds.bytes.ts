import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';

// The bytes of the feeds (google-feeds.service.ts) on their way to a file or a socket. The records
// are written as bytes into buffers reused for the whole feed (google-feeds.fns.ts
// availabilityBytes), never as strings or objects: text and objects that lived across an await (a
// file or socket write, the next statement) outlived two of V8's scavenges, were moved to the old
// generation and collected late, and that garbage was most of the export's and GET's RSS
// (bench/bulk.ts, `--trace-gc`).

export async function writeAll(file: FileHandle, bytes: Buffer, from: number, to: number): Promise<void> {
  for (let at = from; at < to;) at += (await file.write(bytes, at, to - at)).bytesWritten;
}

/** Appends the whole file at `path` to `file`, through `through` (a buffer reused: no Buffer made per read). */
export async function appendFile(file: FileHandle, path: string, through: Buffer): Promise<void> {
  const from = await open(path, 'r');
  try {
    for (;;) {
      const { bytesRead } = await from.read(through, 0, through.length, null);
      if (bytesRead === 0) return;
      await writeAll(file, through, 0, bytesRead);
    }
  } finally {
    await from.close();
  }
}

/**
 * A stream made as it is read: `produce` starts at the first read and calls `push` with each piece,
 * which resolves once the reader wants more, so one piece waits for a slow reader at most. The
 * pieces are strings copied from the bytes, made as the socket wants them, so they die young: a
 * fresh Buffer per piece lived outside V8's heap until V8 next collected, which it does late for
 * those (measured: the serve's RSS 15 MiB higher than with strings). A reader gone (the stream
 * destroyed) makes the next `push` reject, which ends `produce`; `produce` failing destroys the
 * stream with its error (the reader sees a cut-off document).
 */
export function producedStream(produce: (push: (piece: string) => Promise<void>) => Promise<void>): Readable {
  let wanted: (() => void) | null = null;
  let started = false;
  const wake = () => {
    const w = wanted;
    wanted = null;
    w?.();
  };
  const stream = new Readable({
    // Strings as they are (no Buffer made of each); one piece waits for the reader at most.
    objectMode: true,
    highWaterMark: 1,
    read() {
      if (started) return wake();
      started = true;
      produce(push).then(() => stream.push(null), (err) => stream.destroy(err));
    },
    destroy(err, callback) {
      wake();
      callback(err);
    },
  });
  async function push(piece: string): Promise<void> {
    if (stream.destroyed) throw new Error('the reader is gone');
    if (stream.push(piece)) return;
    await new Promise<void>((resolve) => (wanted = resolve));
    if (stream.destroyed) throw new Error('the reader is gone');
  }
  return stream;
}
