/**
 * Accepted and written envelopes per minute over the last hour, from the stats the console polls
 * (the API keeps totals; the differences between polls make the series). An SVG with a text
 * summary beside it, so that it reads without the picture.
 */
import { el } from './dom.ts';

interface Sample {
  at: number;
  accepted: number;
  written: number;
}

const hour = 60 * 60 * 1000;
/** Per tenant, kept while the tab is open. */
const samplesOf = new Map<string, Sample[]>();

export function recordTotals(scope: string, accepted: number, written: number, at = Date.now()): void {
  const samples = samplesOf.get(scope) ?? [];
  samplesOf.set(scope, samples);
  samples.push({ at, accepted, written });
  while (samples.length > 0 && (samples[0] as Sample).at < at - hour) samples.shift();
}

/** Per-minute increases of both totals, for the minutes seen so far this hour. */
function perMinute(samples: Sample[], now: number): { minute: number; accepted: number; written: number }[] {
  const minutes = new Map<number, { accepted: number; written: number }>();
  for (let i = 1; i < samples.length; i++) {
    const previous = samples[i - 1] as Sample;
    const sample = samples[i] as Sample;
    const minute = Math.floor((now - sample.at) / 60_000);
    const bucket = minutes.get(minute) ?? { accepted: 0, written: 0 };
    // A total that went down (counters reset) counts from zero.
    bucket.accepted += Math.max(0, sample.accepted - previous.accepted);
    bucket.written += Math.max(0, sample.written - previous.written);
    minutes.set(minute, bucket);
  }
  return [...minutes.entries()].map(([minute, counts]) => ({ minute, ...counts }));
}

const svgNs = 'http://www.w3.org/2000/svg';
function svg(tag: string, attributes: Record<string, string | number>): SVGElement {
  const element = document.createElementNS(svgNs, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

export function chart(scope: string, now = Date.now()): HTMLElement {
  const points = perMinute(samplesOf.get(scope) ?? [], now);
  const width = 600;
  const height = 120;
  const slot = (width - 20) / 60;
  const top = Math.max(1, ...points.flatMap((point) => [point.accepted, point.written]));
  const barHeight = (value: number) => (value / top) * (height - 25);
  const accepted = points.reduce((sum, point) => sum + point.accepted, 0);
  const written = points.reduce((sum, point) => sum + point.written, 0);
  const summary = `Over the last hour seen here: ${accepted} accepted, ${written} written (peak ${top} a minute).`;
  const picture = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': summary });
  picture.appendChild(svg('line', { x1: 10, x2: width - 10, y1: height - 10, y2: height - 10, class: 'axis' }));
  // One slot per minute, the current one on the right: accepted on its left half, written on its right.
  for (const point of points) {
    const x = width - 10 - (point.minute + 1) * slot;
    for (const [index, key] of (['accepted', 'written'] as const).entries()) {
      const h = barHeight(point[key]);
      picture.appendChild(
        svg('rect', { x: x + index * (slot / 2), y: height - 10 - h, width: slot / 2 - 1, height: h, class: key }),
      );
    }
  }
  return el(
    'figure',
    { class: 'chart-figure' },
    picture,
    el(
      'figcaption',
      {},
      el('span', { class: 'key accepted' }, 'accepted'),
      ' and ',
      el('span', { class: 'key written' }, 'written'),
      ' per minute over the last hour (now on the right). ',
      summary,
    ),
  );
}
