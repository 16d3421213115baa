// Bar charts drawn on the server as SVG (issue 32, item 6): no script and no charting library, so a
// chart shows with JavaScript off and under the console's content security policy (colours come from
// the stylesheet's classes, never a style attribute). A chart is a picture (role="img") named by its
// title and described by its description; the page puts a table of the same numbers beside it, which
// is what a screen reader user reads. Each bar carries its number (data-value) and says it in a tooltip.

export interface ChartSeries {
  /** What the bars of this series count, as the legend and the table say it. */
  name: string
  /** One number per category, in the categories' order. */
  values: number[]
  /**
   * The palette colour (0 red, 1 blue, 2 green, ...) when the default, the series' position, would say
   * the wrong thing: good news is not drawn red, nor bad news green.
   */
  colour?: number
}

export interface BarChart {
  /** Unique on the page: the ids of the title and description derive from it. */
  id: string
  title: string
  description: string
  /** The groups along the bottom (reporting periods), left to right. */
  categories: string[]
  series: ChartSeries[]
  /** Series side by side in each category, or stacked into one bar. */
  layout: 'grouped' | 'stacked'
}

const WIDTH = 640
const HEIGHT = 280
const LEFT = 56
const RIGHT = 8
const TOP = 12
const BOTTOM = 40
const LEGEND_ROW = 20
/** The palette classes of console.css (`.chart .s0` ...): distinct in hue and lightness. */
const PALETTE_SIZE = 8

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** The smallest of 1, 2, 5 times a power of ten at or above the value (at least 1). */
export function niceCeiling(value: number): number {
  if (value <= 1) return 1
  const power = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power
  return 10 * power
}

const number = (value: number) => value.toLocaleString('en-AU')

/** The chart as an SVG element, to be put in the page as it is (its text is escaped here). */
export function barChartSvg(chart: BarChart): string {
  const { categories, series } = chart
  const legendRows = Math.ceil(series.length / 3)
  const height = HEIGHT + legendRows * LEGEND_ROW
  const plotHeight = HEIGHT - TOP - BOTTOM
  const plotWidth = WIDTH - LEFT - RIGHT
  const totals = categories.map((_, i) =>
    chart.layout === 'stacked'
      ? series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0)
      : Math.max(0, ...series.map((s) => s.values[i] ?? 0)),
  )
  // Gridlines at a round step (1, 2 or 5 times a power of ten), four or fewer above zero.
  const largest = Math.max(0, ...totals)
  const step = niceCeiling(largest / 4)
  const top = Math.max(step, Math.ceil(largest / step) * step)
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight
  const band = plotWidth / Math.max(1, categories.length)
  const barsPerBand = chart.layout === 'stacked' ? 1 : Math.max(1, series.length)
  const barWidth = Math.max(2, (band * 0.7) / barsPerBand)
  const parts: string[] = []

  for (let value = 0; value <= top; value += step) {
    const at = y(value).toFixed(1)
    parts.push(
      `<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${at}" y2="${at}"/>`,
      `<text class="axis" x="${LEFT - 6}" y="${at}" text-anchor="end" dominant-baseline="middle">${number(value)}</text>`,
    )
  }
  categories.forEach((category, i) => {
    const start = LEFT + i * band + band * 0.15
    let stackedTo = 0
    series.forEach((s, k) => {
      const value = s.values[i] ?? 0
      const x = chart.layout === 'stacked' ? start : start + k * barWidth
      const from = chart.layout === 'stacked' ? stackedTo : 0
      stackedTo += chart.layout === 'stacked' ? value : 0
      const yTop = y(from + value)
      const barHeight = y(from) - yTop
      parts.push(
        `<rect class="bar s${colourOf(s, k)}" x="${x.toFixed(1)}" y="${yTop.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${barHeight.toFixed(1)}" data-category="${escapeXml(category)}" data-series="${escapeXml(s.name)}" data-value="${value}"><title>${escapeXml(`${category}, ${s.name}: ${number(value)}`)}</title></rect>`,
      )
    })
    parts.push(
      `<text class="axis" x="${(LEFT + i * band + band / 2).toFixed(1)}" y="${HEIGHT - BOTTOM + 18}" text-anchor="middle">${escapeXml(category)}</text>`,
    )
  })
  parts.push(`<line class="axis-line" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(0)}" y2="${y(0)}"/>`)
  series.forEach((s, k) => {
    const x = LEFT + (k % 3) * 190
    const row = HEIGHT + Math.floor(k / 3) * LEGEND_ROW
    parts.push(
      `<rect class="bar s${colourOf(s, k)}" x="${x}" y="${row - 10}" width="12" height="12"/>`,
      `<text class="legend" x="${x + 18}" y="${row}">${escapeXml(s.name)}</text>`,
    )
  })
  const titleId = `${chart.id}-title`
  const descId = `${chart.id}-desc`
  return `<svg class="chart" id="${escapeXml(chart.id)}" role="img" aria-labelledby="${titleId} ${descId}" viewBox="0 0 ${WIDTH} ${height}" xmlns="http://www.w3.org/2000/svg"><title id="${titleId}">${escapeXml(chart.title)}</title><desc id="${descId}">${escapeXml(chart.description)}</desc>${parts.join('')}</svg>`
}

function colourOf(series: ChartSeries, position: number): number {
  return (series.colour ?? position) % PALETTE_SIZE
}
