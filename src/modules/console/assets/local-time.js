// Times in the reader's own zone: an enhancement only. The server writes every instant in the
// console's zone (Australia/Sydney, AEST or AEDT) as <time datetime="…Z" title="… UTC">; when the
// browser's zone is another (Perth, Brisbane, Adelaide, Darwin, Hobart, or anywhere), each is said
// again in it, the UTC time staying on hover. Without script the page keeps the Sydney time.
// No build step: served as it is written.
;(() => {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone
  if (!zone || zone === 'Australia/Sydney') return
  const format = new Intl.DateTimeFormat('en-AU', {
    timeZone: zone,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  })
  const localise = (root) => {
    for (const time of root.querySelectorAll('time[datetime][title$=" UTC"]')) {
      const instant = new Date(time.dateTime)
      if (!Number.isNaN(instant.getTime())) time.textContent = format.format(instant)
    }
  }
  localise(document)
  // Parts a live status puts in place later are said in the same zone.
  new MutationObserver((changes) => {
    for (const change of changes)
      for (const node of change.addedNodes) if (node.nodeType === 1) localise(node.parentElement ?? node)
  }).observe(document.body, { childList: true, subtree: true })
})()
