// Live validation status on a batch's page: an enhancement only. The page works without it (its
// "Refresh the status" link). While the validation is Queued or In progress, this asks the console
// for the batch's status every two seconds and writes it into the status region (aria-live=polite,
// so a screen reader says the change); once Validated, it fetches the page again and puts its
// results in place of the old ones, without reloading. No build step: served as it is written.
;(() => {
  const region = document.getElementById('validation-status')
  const url = region?.dataset.statusUrl
  if (!region || !url) return
  const INTERVAL_MS = 2000
  const GIVE_UP_AFTER_MS = 30 * 60 * 1000
  const startedAt = Date.now()
  let last = region.dataset.status

  async function showResults() {
    const response = await fetch(window.location.href, { credentials: 'same-origin' })
    if (!response.ok) return
    const fresh = new DOMParser().parseFromString(await response.text(), 'text/html')
    for (const id of ['batch-actions', 'batch-results']) {
      const now = document.getElementById(id)
      const then = fresh.getElementById(id)
      if (now && then) now.replaceWith(document.importNode(then, true))
    }
    document.getElementById('refresh-status')?.remove()
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
    if (answer.status !== last) {
      last = answer.status
      region.innerHTML = answer.html // the console's own template, its values escaped
      region.dataset.status = answer.status
    }
    if (answer.status === 'Validated') await showResults()
    else if (answer.status === 'Queued' || answer.status === 'InProgress') setTimeout(poll, INTERVAL_MS)
  }

  setTimeout(poll, INTERVAL_MS)
})()
