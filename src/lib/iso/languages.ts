// ISO 639-1: the 183 two-letter language codes in force. `bh` (Bihari) was deprecated in 2021 and `sh`
// (Serbo-Croatian) in 2000, so neither is accepted. Kept as one block of text to read at a glance.
const CODES = `
  aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da
  de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy
  hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg
  li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or
  os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta
  te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
`;

/** Every two-letter code in force, sorted. */
export const LANGUAGE_CODES: readonly string[] = CODES.trim().split(/\s+/);

const SET: ReadonlySet<string> = new Set(LANGUAGE_CODES);

/** True for a code in force, in lowercase as ISO 639-1 writes it ("es", not "ES"). */
export function isLanguageCode(code: string): boolean {
  return SET.has(code);
}
