// Pages are rendered on the server from Eta templates (views/*.eta): every value is HTML-escaped unless
// a template says otherwise (<%~ %>, used only for markup made here or by the identity provider
// library). No front-end build; the scripts (assets/live-status.js, upload-progress.js) only enhance (docs/decisions.md,
// "Web console: rendering", "Live validation status").
import { fileURLToPath } from 'node:url'
import { Eta } from 'eta'
import type { ConsoleUser } from './console-people.ts'
import { ROLE_LABELS } from './console-people.ts'
import { labelTableCells } from './table-labels.ts'

const eta = new Eta({
  views: fileURLToPath(new URL('./views', import.meta.url)),
  cache: true,
  autoEscape: true,
  autoTrim: false,
})

export interface PageFrame {
  title: string
  /** The signed-in person, if any: the header names them and offers the way out. */
  user?: ConsoleUser | undefined
  /** The RTO whose pages these are: the navigation links to them. */
  rto?: string | undefined
  /** The form token every form on the page carries (the sign-out form in the header too). */
  csrf?: string | undefined
  /** Which navigation entry is the current page. */
  current?:
    | 'home'
    | 'batches'
    | 'records'
    | 'assessment'
    | 'trends'
    | 'declarations'
    | 'rtos'
    | 'collection'
    | 'calendar'
    | 'jobs'
    | 'clients'
    | 'nat-import'
    | 'reference-data'
    | 'rules'
    | 'sessions'
    | 'audit'
    | 'webhooks'
    | undefined
  /** A message left by the previous request (post, redirect, get). */
  flash?: Flash | undefined
}

export interface Flash {
  kind: 'success' | 'error'
  text: string
}

export function renderPage(template: string, frame: PageFrame, data: object = {}): string {
  return labelTableCells(eta.render(`./${template}`, { ...data, frame, roleLabels: ROLE_LABELS, format }))
}

/** A part of a page (no layout), for a script that updates the page in place. */
export function renderFragment(template: string, data: object): string {
  return labelTableCells(eta.render(`./${template}`, { ...data, roleLabels: ROLE_LABELS, format }))
}

/** The zone the console says times in when the browser does not say its own (docs/decisions.md). */
export const CONSOLE_TIME_ZONE = 'Australia/Sydney'
const CONSOLE_TIME = new Intl.DateTimeFormat('en-AU', {
  timeZone: CONSOLE_TIME_ZONE,
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
})

/** Formatting helpers the templates share. */
const format = {
  dateTime(iso: string | null | undefined): string {
    if (!iso) return '—'
    return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
  },
  /**
   * An instant as markup: in the console's zone (Australia/Sydney, AEST or AEDT as the date has it),
   * the UTC time on hover, and the instant itself for assets/local-time.js, which says it in the
   * browser's own zone when that is another.
   */
  when(iso: string | null | undefined): string {
    if (!iso) return '—'
    const instant = new Date(iso)
    if (Number.isNaN(instant.getTime())) return '—'
    const exact = instant.toISOString()
    return `<time datetime="${exact}" title="${exact.slice(0, 10)} ${exact.slice(11, 16)} UTC">${CONSOLE_TIME.format(instant)}</time>`
  },
  /** A calendar day (YYYY-MM-DD) as people write it: 31 July 2026. */
  date(day: string | null | undefined): string {
    if (!day) return '—'
    return new Date(`${day.slice(0, 10)}T00:00:00Z`).toLocaleDateString('en-AU', {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      timeZone: 'UTC',
    })
  },
  number(value: number): string {
    return value.toLocaleString('en-AU')
  },
  period(code: number | string): string {
    const text = String(code)
    return `${text.slice(0, 4)} Q${text.slice(5)}`
  },
  /** The console page of a held record of the RTO. */
  recordPath(rto: string, type: string, uid: string): string {
    return `/console/rto/${encodeURIComponent(rto)}/records?type=${encodeURIComponent(type)}&uid=${encodeURIComponent(uid)}`
  },
  query(params: Record<string, string | number | undefined>): string {
    const search = new URLSearchParams()
    for (const [name, value] of Object.entries(params))
      if (value !== undefined && value !== '') search.set(name, String(value))
    const text = search.toString()
    return text ? `?${text}` : ''
  },
}
