/**
 * Peak RSS of a benchmark process above what it holds before the timed part: garbage from building
 * the input is collected first (run node with --expose-gc), so the baseline is the input itself.
 */
export function trackPeakMemory() {
  (globalThis as { gc?: () => void }).gc?.();
  const baselineRss = process.memoryUsage().rss;
  let peak = baselineRss;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().rss);
  };
  const sampler = setInterval(sample, 5);
  return {
    baselineRss,
    sample,
    /** Stops sampling; the peak includes the kernel's own high-water mark of the process. */
    stop(): number {
      clearInterval(sampler);
      return Math.max(peak, process.resourceUsage().maxRSS * 1024);
    },
  };
}
