const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** An object being read (with the names seen so far and the current one) or an array (with the current index). */
interface Level {
  readonly names?: Set<string>;
  name?: string;
  index: number;
}

function pathOf(levels: readonly Level[], name: string): string {
  let path = '';
  for (const level of levels.slice(0, -1)) path += level.names ? `${path ? '.' : ''}${level.name}` : `[${level.index}]`;
  return path ? `${path}.${name}` : name;
}

/**
 * The path of every property given more than once in one object ("price",
 * "a.b", "items[2].id") of a text JSON.parse has already accepted. JSON.parse
 * keeps the last of them silently, so a client that sends {"price":1,"price":2}
 * would never learn which one counted. Names compare decoded: "\u0061" is "a".
 */
export function repeatedProperties(json: string): string[] {
  const repeated = new Set<string>();
  const levels: Level[] = [];
  let expectName = false;
  for (let i = 0; i < json.length; i++) {
    const char = json.charCodeAt(i);
    if (char === QUOTE) {
      let end = i + 1;
      while (json.charCodeAt(end) !== QUOTE) end += json.charCodeAt(end) === BACKSLASH ? 2 : 1;
      if (expectName) {
        const raw = json.slice(i + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(json.slice(i, end + 1)) as string) : raw;
        const level = levels[levels.length - 1]!;
        if (level.names!.has(name)) repeated.add(pathOf(levels, name));
        level.names!.add(name);
        level.name = name;
        expectName = false;
      }
      i = end;
    } else if (char === OPEN_OBJECT) {
      levels.push({ names: new Set(), index: 0 });
      expectName = true;
    } else if (char === OPEN_ARRAY) {
      levels.push({ index: 0 });
    } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) {
      levels.pop();
    } else if (char === COMMA) {
      const level = levels[levels.length - 1]!;
      if (level.names) expectName = true;
      else level.index++;
    }
  }
  return [...repeated];
}
