// Tables a phone can read (issue 32, item 9): at 390 px a wide table scrolled its last columns out of
// sight. Each data cell is given its column's heading as `data-label`, so the stylesheet can show every
// row as a card of "heading: value" lines on a narrow screen (console.css, "Narrow screens"). Done
// once over the rendered page rather than in each template, so no table can be left without it. The
// console's own templates are the only input: a table is `<table>` with one `<thead>` row of `<th>`
// headings, then `<tbody>` rows; a cell's colspan moves the next cell's column on.

const TABLE = /<table\b[^>]*>[\s\S]*?<\/table>/g
const HEAD_ROW = /<thead>[\s\S]*?<tr[^>]*>([\s\S]*?)<\/tr>/
const HEADING = /<th\b[^>]*>([\s\S]*?)<\/th>/g
const BODY = /(<tbody>)([\s\S]*?)(<\/tbody>)/
const ROW = /(<tr\b[^>]*>)([\s\S]*?)(<\/tr>)/g
const CELL = /<(td|th)\b([^>]*)>/g

/** The text of a heading's markup as an attribute value: tags dropped, spaces collapsed, quotes escaped. */
const labelOf = (markup: string) =>
  markup
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/"/g, '&quot;')

export function labelTableCells(page: string): string {
  return page.replace(TABLE, (table) => {
    const head = HEAD_ROW.exec(table)
    if (!head) return table
    const labels = [...head[1]!.matchAll(HEADING)].map((m) => labelOf(m[1]!))
    return table.replace(BODY, (_all, open: string, body: string, close: string) => {
      const rows = body.replace(ROW, (_row, start: string, cells: string, end: string) => {
        let column = 0
        const labelled = cells.replace(CELL, (cell, tag: string, attributes: string) => {
          const label = labels[column]
          column += Number(/colspan="(\d+)"/.exec(attributes)?.[1] ?? 1)
          if (!label || attributes.includes('data-label=') || /colspan=/.test(attributes)) return cell
          return `<${tag}${attributes} data-label="${label}">`
        })
        return `${start}${labelled}${end}`
      })
      return `${open}${rows}${close}`
    })
  })
}
