// The benchmarks' printed tables: a header, a rule, then rows; the first `textColumns` columns are
// left-aligned (names), the rest right-aligned (figures).
export function table(rows: string[][], textColumns: number): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column < textColumns ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('   ')
  return [line(rows[0]!), widths.map((width) => '-'.repeat(width)).join('   '), ...rows.slice(1).map(line)].join('\n')
}
