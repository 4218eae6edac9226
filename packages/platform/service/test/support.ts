/** A logger that keeps what it is told. */
export function recordingLogger() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const write = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, ...(fields && { fields }) });
  return { lines, logger: { info: write('info'), warn: write('warn'), error: write('error') } };
}
