import { BIG_CHUNK, detach, type ChunkSource } from './availability-feed-shard.fns.ts';

// DESIGN 8.3b: where the availability feed's shards get the chunks their COPY text is written into
// (availability-feed-shard.fns.ts), kept apart from that pure file because of its timer.

/** How long the last shard's big COPY-text chunk is kept for the next shard of a feed. */
const SPARE_MS = 1000;

/**
 * The shards' COPY-text chunks, the last big one kept for the next shard (an RMS sends a feed's shards
 * one after the other) and freed after SPARE_MS without one. A new 32 MiB chunk per shard counted in
 * full as V8's external memory and made it collect twice a shard instead of once (bench/bulk.ts: ~10%
 * more CPU per 1,000,000-record ingest). A chunk is given back only once nothing reads it (release).
 */
export function spareChunks(): ChunkSource {
  let spare: Buffer | null = null;
  let timer: NodeJS.Timeout | undefined;
  return {
    take(size) {
      if (size < BIG_CHUNK || !spare || spare.length < size) return Buffer.allocUnsafeSlow(size);
      const chunk = spare;
      spare = null;
      return chunk;
    },
    give(chunk) {
      if (spare || chunk.length < BIG_CHUNK) return detach(chunk);
      spare = chunk;
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (spare) detach(spare);
        spare = null;
      }, SPARE_MS).unref();
    },
  };
}
