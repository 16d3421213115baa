// The counts of a node:test TAP report, for scripts/test.ts's summary. Node's own "# skipped" counts
// skipped tests only: a suite skipped whole (describe with skip, e.g. the PostgreSQL-only suites on
// the embedded half) is reported as one "ok ... # SKIP" line and counted nowhere. Skips are counted
// here from those lines, so a skipped suite counts as one skip, as a skipped test does.

export interface TapCounts {
  passed: number
  failed: number
  skipped: number
}

export function countsOfTap(tap: string): TapCounts {
  const count = (label: string) => Number(new RegExp(`^# ${label} (\\d+)$`, 'm').exec(tap)?.[1] ?? 0)
  return {
    passed: count('pass'),
    failed: count('fail') + count('cancelled'),
    skipped: (tap.match(/^\s*ok \d+ - .*# SKIP\b/gm) ?? []).length,
  }
}
