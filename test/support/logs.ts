/** The tests' captured logger (installed by setup.ts): the last lines logged in this process. */
const MAX = 500;
const lines: string[] = [];

export function capturedLogSink(line: string): void {
  lines.push(line);
  if (lines.length > MAX) lines.splice(0, lines.length - MAX);
}

/** Lines logged since the last `clearTestLogs()` (or the start), oldest first. */
export function testLogs(): string[] {
  return [...lines];
}

export function clearTestLogs(): void {
  lines.length = 0;
}
