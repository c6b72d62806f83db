/**
 * Traffic over time, from the API's history (`…/stats/history`): drawn as soon as the page opens,
 * then kept current by re-reading the last intervals at each poll. An SVG with a text summary
 * beside it, so that it reads without the picture; each interval's figures are its tooltip.
 */
import { api, type HistoryInterval, qs, type TrafficHistory } from './api.ts';
import { el, errorBox, replace } from './dom.ts';

const ranges = {
  day: { label: 'Last 24 hours', step: '15m', stepMs: 15 * 60_000, slots: 96, per: 'per 15 minutes' },
  week: { label: 'Last 7 days', step: '1h', stepMs: 60 * 60_000, slots: 168, per: 'per hour' },
} as const;
type Range = keyof typeof ranges;

const rejectedOf = (interval: HistoryInterval) => Object.values(interval.rejected).reduce((sum, n) => sum + n, 0);
const series = [
  { key: 'accepted', label: 'accepted', value: (i: HistoryInterval) => i.accepted },
  { key: 'written', label: 'written', value: (i: HistoryInterval) => i.written_rows },
  { key: 'rejected', label: 'rejected', value: rejectedOf },
] as const;

const svgNs = 'http://www.w3.org/2000/svg';
function svg(tag: string, attributes: Record<string, string | number>, ...children: (SVGElement | string)[]) {
  const element = document.createElementNS(svgNs, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child);
  return element;
}

const hourMs = 60 * 60_000;
/** Where the axis is marked, by range: every 3 hours over a day, every midnight (UTC) over a week. */
const ticks = { day: 3 * hourMs, week: 24 * hourMs } as const;

/** A tick's label: the hour (and the date at midnight) over a day, the weekday and date over a week. */
function tickLabel(at: number, range: Range): string {
  const iso = new Date(at).toISOString();
  const date = iso.slice(5, 10);
  if (range === 'week')
    return `${new Date(at).toLocaleDateString('en', { weekday: 'short', timeZone: 'UTC' })} ${date}`;
  const clock = iso.slice(11, 16);
  return clock === '00:00' ? `${date} ${clock}` : clock;
}

/**
 * The chart, `width` wide (the width it is shown at, so that its text keeps its size): each
 * interval at its place in time from `oldest`, three bars each, and the axis marked with times.
 */
function picture(intervals: HistoryInterval[], range: Range, oldest: number, width: number, summary: string) {
  const height = 150;
  const left = 10;
  const right = width - 10;
  const bottom = height - 30;
  const { slots, stepMs, per } = ranges[range];
  const slot = (right - left) / slots;
  const xOf = (at: number) => left + ((at - oldest) / stepMs) * slot;
  const top = Math.max(1, ...intervals.flatMap((interval) => series.map((s) => s.value(interval))));
  const drawing = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    class: 'chart',
    role: 'img',
    'aria-label': summary,
  });
  drawing.append(svg('line', { x1: left, x2: right, y1: bottom, y2: bottom, class: 'axis' }));
  drawing.append(svg('text', { x: left, y: 12, class: 'label' }, `${top} ${per} at most`));
  drawing.append(svg('text', { x: right, y: 12, class: 'label', 'text-anchor': 'end' }, 'times in UTC'));
  for (let at = Math.ceil(oldest / ticks[range]) * ticks[range]; at < oldest + slots * stepMs; at += ticks[range]) {
    const x = xOf(at);
    drawing.append(svg('line', { x1: x, x2: x, y1: bottom, y2: bottom + 5, class: 'axis' }));
    // Kept inside the drawing: a mark near either end is labelled a little inward.
    const labelX = Math.min(Math.max(x, left + 36), right - 36);
    drawing.append(
      svg('text', { x: labelX, y: bottom + 18, class: 'label tick', 'text-anchor': 'middle' }, tickLabel(at, range)),
    );
  }
  for (const interval of intervals) {
    const x = xOf(Date.parse(interval.start));
    const bars = series.map((s, k) => {
      const h = (s.value(interval) / top) * (bottom - 20);
      return svg('rect', {
        x: x + (k * slot) / 3,
        y: bottom - h,
        width: Math.max(slot / 3 - 0.5, 0.5),
        height: h,
        class: s.key,
      });
    });
    const tip = `${interval.start.replace('T', ' ').slice(0, 16)} UTC: ${interval.accepted} accepted, ${interval.written_rows} written, ${rejectedOf(interval)} rejected, ${interval.dead_lettered} dead-lettered`;
    drawing.append(svg('g', {}, svg('title', {}, tip), ...bars));
  }
  return drawing;
}

/**
 * A traffic chart of `path` (a connection's or a tenant's history route). `load` reads the whole
 * range (at first and when the range changes); `follow` re-reads the last two intervals, for polls.
 * `signal`: the view's, which abandons a read once the operator has left it.
 */
export function trafficChart(path: string, title: string, signal: AbortSignal) {
  let range: Range = 'day';
  const byStart = new Map<string, HistoryInterval>();
  const body = el('div');
  const buttons = new Map<Range, HTMLButtonElement>();
  for (const key of Object.keys(ranges) as Range[])
    buttons.set(
      key,
      el(
        'button',
        {
          type: 'button',
          'aria-pressed': String(key === range),
          onclick: () => {
            range = key;
            for (const [other, button] of buttons) button.setAttribute('aria-pressed', String(other === key));
            void load();
          },
        },
        ranges[key].label,
      ),
    );
  const element = el(
    'figure',
    { class: 'chart-figure' },
    el('div', { class: 'actions', role: 'group', 'aria-label': `${title}: range shown` }, [...buttons.values()]),
    body,
  );

  const draw = () => {
    const { slots, stepMs, label, per } = ranges[range];
    const oldest = (Math.floor(Date.now() / stepMs) - slots + 1) * stepMs;
    for (const start of byStart.keys()) if (Date.parse(start) < oldest) byStart.delete(start);
    const intervals = [...byStart.values()].sort((a, b) => a.start.localeCompare(b.start));
    const sum = (value: (i: HistoryInterval) => number) => intervals.reduce((total, i) => total + value(i), 0);
    const summary = `${label}, ${per} (UTC): ${sum((i) => i.accepted)} accepted, ${sum((i) => i.written_rows)} written, ${sum(rejectedOf)} rejected, ${sum((i) => i.dead_lettered)} dead-lettered.`;
    // As wide as the page gives it (read again at each draw, so a resized window is followed at the next poll).
    const width = Math.max(320, Math.round(body.clientWidth) || 600);
    replace(
      body,
      picture(intervals, range, oldest, width, summary),
      el(
        'figcaption',
        {},
        `${title}: `,
        series.map((s, k) => [
          k > 0 ? (k === series.length - 1 ? ' and ' : ', ') : '',
          el('span', { class: `key ${s.key}` }, s.label),
        ]),
        ' (oldest on the left). ',
        el('span', { class: 'chart-summary' }, summary),
      ),
    );
  };

  /** The range whose whole history was read: until it is, a poll reads the whole range again (not only its end). */
  let loaded: Range | null = null;
  /** Reads not answered yet: a poll asks nothing while one waits (a slow API is not asked again and again). */
  let waiting = 0;
  /** Reads from `from` on in the range's step; an answer for a range no longer shown is dropped. */
  const read = async (from: number, whole: boolean) => {
    const asked = range;
    waiting++;
    try {
      const history = await api<TrafficHistory>(
        `${path}${qs({ step: ranges[asked].step, from: new Date(from).toISOString() })}`,
        { signal },
      );
      if (asked !== range) return;
      if (whole) {
        byStart.clear();
        loaded = asked;
      }
      for (const interval of history.intervals) byStart.set(interval.start, interval);
      draw();
    } catch (error) {
      if (!signal.aborted) replace(body, errorBox(error));
    } finally {
      waiting--;
    }
  };

  /** The whole range, at once. */
  const load = () => read(Date.now() - ranges[range].slots * ranges[range].stepMs, true);
  /**
   * The current and the previous interval, which may still move; or the whole range, if its first
   * read failed. Nothing while a read waits: polls of a slow answer would pile up behind it.
   */
  const follow = async () => {
    if (waiting > 0) return;
    await (loaded === range ? read(Date.now() - ranges[range].stepMs, false) : load());
  };

  return { element, load, follow };
}
