/** Waiting for the service to get somewhere, without timed assertions: a timeout fails with what was last seen. */

export interface PollOptions {
  /** What is awaited, for the failure message. */
  what?: string;
  timeoutMs?: number;
  intervalMs?: number;
}

/** A short, readable form of a value for a failure message (an API response shows status and body). */
export function shown(value: unknown): string {
  let text: string;
  if (value && typeof value === 'object' && 'status' in value && 'text' in value) {
    text = `${String(value.status)} ${String(value.text)}`;
  } else {
    try {
      text = JSON.stringify(value, (_, item) => (typeof item === 'bigint' ? item.toString() : item)) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/** Reads until `done` holds and answers that reading; after the timeout, fails with the last one. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: PollOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `Gave up after ${timeoutMs} ms waiting for ${options.what ?? 'a condition'}; last seen: ${shown(value)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
  }
}
