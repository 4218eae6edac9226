import { format, type Logform } from 'winston';
import { jsonLine } from './json-lines';
import type { LogFormat } from './settings';

const MESSAGE = Symbol.for('message');

/** ANSI colours a service's name may take: none of them is a level's or a status's. */
export const SERVICE_COLOURS = [36, 35, 34, 96, 95, 94] as const;
const LEVEL_COLOURS: Readonly<Record<string, number>> = { error: 31, warn: 33, debug: 90 };
/** The keys every line has, shown in their own places rather than as fields. */
const OWN_KEYS = new Set(['level', 'message', 'service', 'timestamp']);
/** What a request line shows in its own places; its request id is left to the JSON lines. */
const REQUEST_KEYS = new Set([...OWN_KEYS, 'method', 'path', 'status', 'durationMs', 'requestId']);

export interface PrettyStyle {
  /** ANSI colours: the service's name, a level other than info, a request's status. */
  readonly colours: boolean;
  /** The width the service's name is padded to, so that the lines of several services line up. */
  readonly serviceWidth?: number;
  /** The service name's colour (one of SERVICE_COLOURS); by default one picked from the name. */
  readonly serviceColour?: number;
}

/** What a format decision needs to know of the stream the lines go to (process.stdout is one). */
export interface LineDestination {
  readonly isTTY?: boolean;
  hasColors?(): boolean;
}

type Entry = Readonly<Record<string, unknown>>;

/** A field of a line as text: a string as it is, absent as `fallback`, anything else as JSON writes it. */
function textOf(value: unknown, fallback = ''): string {
  if (value === undefined || value === null) return fallback;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
type Paint = (colour: number | undefined, text: string) => string;

function colourOf(service: string): number {
  let hash = 0;
  for (const char of service) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return SERVICE_COLOURS[hash % SERVICE_COLOURS.length]!;
}

function statusColour(status: number): number {
  if (status >= 500) return 31;
  if (status >= 400) return 33;
  return status >= 300 ? 36 : 32;
}

/** The local time of day to the millisecond: a person at a terminal reads their own clock. */
function clockTime(timestamp: unknown): string {
  const parsed = typeof timestamp === 'string' ? new Date(timestamp) : new Date(Number.NaN);
  const date = Number.isNaN(parsed.getTime()) ? new Date() : parsed;
  const digits = (n: number, width = 2) => String(n).padStart(width, '0');
  const time = [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => digits(n)).join(':');
  return `${time}.${digits(date.getMilliseconds(), 3)}`;
}

function isRequest(entry: Entry): boolean {
  return entry.message === 'request' && typeof entry.method === 'string' && typeof entry.status === 'number';
}

function requestText(entry: Entry, paint: Paint): string {
  const status = entry.status as number;
  const duration = typeof entry.durationMs === 'number' ? ` ${entry.durationMs.toFixed(1)} ms` : '';
  return `${String(entry.method)} ${String(entry.path)} ${paint(statusColour(status), String(status))}${duration}`;
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** The fields as key=value, but a text the message already says, as a word or a phrase (a start line names its URL). */
function fieldsText(entry: Entry, shownElsewhere: ReadonlySet<string>, message: string): string {
  const words = new Set(message.split(/[\s;,()]+/));
  const said = (value: unknown) =>
    typeof value === 'string' && (words.has(value) || (/\s/.test(value) && message.includes(value)));
  return Object.entries(entry)
    .filter(([key, value]) => !shownElsewhere.has(key) && value !== undefined && !said(value))
    .map(([key, value]) => ` ${key}=${valueText(value)}`)
    .join('');
}

/**
 * One short line a person reads: the time, the service, the level unless it is
 * info, then a request's method, path, status and duration, or the message,
 * and the fields it does not already say.
 */
export function prettyLine(entry: Entry, style: PrettyStyle): string {
  const paint: Paint = (colour, text) =>
    style.colours && colour !== undefined ? `\x1b[${colour}m${text}\x1b[0m` : text;
  const service = textOf(entry.service);
  const level = textOf(entry.level, 'info');
  const request = isRequest(entry);
  const message = request ? requestText(entry, paint) : textOf(entry.message);
  const name = paint(style.serviceColour ?? colourOf(service), service.padEnd(style.serviceWidth ?? 0));
  const parts = [clockTime(entry.timestamp), name];
  if (level !== 'info') parts.push(paint(LEVEL_COLOURS[level], level.toUpperCase()));
  parts.push(message);
  return `${parts.join(' ')}${fieldsText(entry, request ? REQUEST_KEYS : OWN_KEYS, message)}`;
}

/** winston's line for a person: see prettyLine. */
export const prettyLines = format((info, style) => {
  (info as unknown as Record<symbol, unknown>)[MESSAGE] = prettyLine(info, style as PrettyStyle);
  return info;
});

/** Lines a person reads at a terminal (`auto`) or when asked (`pretty`); JSON into a pipe, a file or a collector. */
export function chosenFormat(setting: LogFormat, destination: LineDestination): 'json' | 'pretty' {
  if (setting === 'auto') return destination.isTTY === true ? 'pretty' : 'json';
  return setting;
}

/** Colours only where a terminal shows them (it honours NO_COLOR and FORCE_COLOR). */
export function showsColours(destination: LineDestination): boolean {
  return destination.isTTY === true && destination.hasColors?.() === true;
}

/** The winston format of the lines `destination` gets under `setting`. */
export function lineFormat(setting: LogFormat, destination: LineDestination): Logform.Format {
  if (chosenFormat(setting, destination) === 'json') return jsonLine();
  return prettyLines({ colours: showsColours(destination) });
}
