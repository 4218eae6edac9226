import { prettyLine } from '@platform/runtime';

/** How start:system shows the services' lines: as they write them (JSON), or one short line a person reads. */
export interface LinesStyle {
  readonly format: 'json' | 'pretty';
  readonly colours: boolean;
}

/** A service as start:system names it, and its colour (one of the platform's SERVICE_COLOURS). */
export interface ShownService {
  readonly name: string;
  readonly colour: number;
}

/** The longest service name, so that every service's lines line up. */
const NAME_WIDTH = 8;

function entryOf(line: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    return isObject ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A line a service wrote, as start:system prints it: behind the service's
 * name as written, or the platform's human line, the service named as
 * start:system names it, in its colour. A line that is not JSON (a failure to
 * start, on stderr) is shown as its message.
 */
export function shownLine(service: ShownService, line: string, style: LinesStyle): string {
  if (style.format === 'json') return `${service.name.padEnd(NAME_WIDTH)} │ ${line}`;
  const entry = entryOf(line) ?? { message: line };
  const pretty = { colours: style.colours, serviceWidth: NAME_WIDTH, serviceColour: service.colour };
  return prettyLine({ ...entry, service: service.name }, pretty);
}
