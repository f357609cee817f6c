// The last answer read for each key, as text and as parsed: a new answer of the same bytes is that
// same value, not parsed again. For a read made often whose answer rarely changes between reads (a
// live bill's POS read of the venue's whole open-order list, a few ms apart; parsing it was ~7% of
// the live bill's time, issue 28). The read itself is always made, and only an answer of exactly the
// same bytes is reused, so nothing is staler than a parse of it would be. The value is shared by the
// answers of those bytes: a caller may check it again (ajv's defaults and removals give the same
// result twice) but must not otherwise change it.

/** `(key, text, parse)`: parse(text), or the value of the key's last text if this is the same text. At most `maxKeys` keys kept. */
export function lastAnswers<T>(maxKeys: number): (key: string, text: string, parse: (text: string) => T) => T {
  const last = new Map<string, { text: string; value: T }>();
  return (key, text, parse) => {
    const seen = last.get(key);
    if (seen && seen.text === text) return seen.value;
    const value = parse(text);
    if (!seen && last.size >= maxKeys) last.clear();
    last.set(key, { text, value });
    return value;
  };
}
