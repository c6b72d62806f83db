/**
 * The generic cell rate algorithm: a token bucket kept as one number, the theoretical arrival time
 * of the next request. `burst` requests may arrive at once; after that one every 1/rps seconds.
 */
export interface RateDecision {
  allowed: boolean;
  /** The state to store when allowed. */
  nextArrivalMs: number;
  /** When refused: how long until a request would be allowed. */
  retryAfterMs: number;
}

export function decideRate(
  nowMs: number,
  storedArrivalMs: number | null,
  requestsPerSecond: number,
  burst: number,
): RateDecision {
  const interval = 1000 / requestsPerSecond;
  const tolerance = (burst - 1) * interval;
  const arrival = Math.max(storedArrivalMs ?? nowMs, nowMs);
  if (arrival - nowMs > tolerance)
    return { allowed: false, nextArrivalMs: arrival, retryAfterMs: arrival - nowMs - tolerance };
  return { allowed: true, nextArrivalMs: arrival + interval, retryAfterMs: 0 };
}
