// Live status of a background run on its page (a batch's validation, a period's data quality
// assessment): an enhancement only. The page works without it (its "Refresh the status" link). The
// status element names what to ask and what to do:
//   data-status-url  where the status is read: JSON { status, html } (html: the page's own rendering
//                    of the status, its values escaped by the console's templates)
//   data-status      the status as the page was made
//   data-pending     the statuses (comma-separated) that are still running: asked again every 2 s
//                    (the status's html is put in place whenever it changes: a run's progress too)
//   data-replace     ids of the parts of the page (space-separated) to take from the page made again
//                    once the run is no longer pending (its results, its buttons)
//   data-refresh     id of the refresh link, removed then
// The status element is aria-live=polite, so a screen reader says each change. No reload: the page
// is fetched again (same origin) and the parts are put in place, so the person keeps their place.
// No build step: served as it is written.
;(() => {
  const region = document.querySelector('[data-status-url]')
  const url = region?.dataset.statusUrl
  if (!region || !url) return
  const pending = (region.dataset.pending ?? '').split(',')
  const parts = (region.dataset.replace ?? '').split(' ').filter(Boolean)
  const INTERVAL_MS = 2000
  const GIVE_UP_AFTER_MS = 30 * 60 * 1000
  const startedAt = Date.now()
  let last = region.dataset.status
  let lastHtml

  async function showOutcome() {
    const response = await fetch(window.location.href, { credentials: 'same-origin' })
    if (!response.ok) return
    const fresh = new DOMParser().parseFromString(await response.text(), 'text/html')
    for (const id of parts) {
      const now = document.getElementById(id)
      const then = fresh.getElementById(id)
      if (now && then) now.replaceWith(document.importNode(then, true))
      else if (now) now.remove() // the page made again has no such part (a button no longer offered)
    }
    if (region.dataset.refresh) document.getElementById(region.dataset.refresh)?.remove()
  }

  async function poll() {
    if (Date.now() - startedAt > GIVE_UP_AFTER_MS) return
    let answer
    try {
      const response = await fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } })
      if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('application/json')) return
      answer = await response.json()
    } catch {
      return // offline or signed out: the link still refreshes the page
    }
    if (answer.status !== last || answer.html !== lastHtml) {
      last = answer.status
      lastHtml = answer.html
      region.innerHTML = answer.html // the console's own template, its values escaped
      region.dataset.status = answer.status
    }
    if (pending.includes(answer.status)) setTimeout(poll, INTERVAL_MS)
    else await showOutcome()
  }

  setTimeout(poll, INTERVAL_MS)
})()
