import { describe, expect, it } from 'vitest';
import { FeedJsonError, FeedJsonReader } from '../../src/rms/feed-json.fns.ts';

// The shard body's streaming reader (issue 28) against JSON.parse of the whole text: the same
// members and records whatever the chunk boundaries, and an error exactly where JSON.parse has one.

function read(text: string, chunk: number): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  let records: unknown[] = [];
  const reader = new FeedJsonReader({
    member: (key, value) => { if (key === null) body.root = value; else body[key] = value; },
    dataStart: () => { records = []; body.data = records; },
    record: (value, index) => { expect(index).toBe(records.length); records.push(value); },
  });
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunk) reader.push(bytes.subarray(i, i + chunk));
  reader.end();
  return body;
}

const valid = [
  '{"metadata":{"nonce":"n","total_shards":1,"shard_number":0},"data":[{"venueId":"a,]}\\"[{","slotData":[{"x":[1,{"y":"}"}]}]},2,"é€😀",null,[],{}]}',
  ' \n{ "data" : [ ] , "metadata" : { } }\t',
  '{"data":[true , false,-1.5e3,"\\\\"],"data":{"a":1}}',
  '{"data":[[1,[2,[3]]]],"other":"x","data":[{"k":"\\u0041"}]}',
  '{}',
];
const invalid = ['{"data":[1,]}', '{"data":[,1]}', '{"data":[1}', '{"data":[1] "x":1}', '{"a":1,}', '{"a" 1}', '{"a":1} x', '{"data":[1', '{', '', '   ',
  '{"a":tru}', '{"data":[{"a":1}{"b":2}]}', '{"__proto__":{"x":1}}', '{"data":[{"__proto__":1}]}', '{"data":[{"constructor":{"prototype":{}}}]}', '[1,2', '{"a":"x'];

describe('FeedJsonReader', () => {
  it('reads every member and record as JSON.parse of the whole body does, at every chunk size', () => {
    for (const text of valid) {
      const whole = JSON.parse(text);
      for (const chunk of [1, 2, 3, 5, 7, 64, 1 << 20]) expect(read(text, chunk)).toEqual(whole);
    }
    expect(read('[1,"x"]', 1)).toEqual({ root: [1, 'x'] });
    expect(read('\uFEFF{"a":1}', 1)).toEqual({ a: 1 });
  });

  it('refuses what JSON.parse refuses (and the prototype keys Fastify refuses), at every chunk size', () => {
    for (const text of invalid) {
      for (const chunk of [1, 3, 1 << 20]) expect(() => read(text, chunk), `${text} in chunks of ${chunk}`).toThrow(FeedJsonError);
    }
  });
});
