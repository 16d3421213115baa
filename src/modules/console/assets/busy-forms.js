// What a long form is doing (a batch's submit waits a few seconds for its job): an enhancement only.
// A form with data-busy="<id>" says, once sent, in the status element of that id (role=status, so a
// screen reader says it) that the service is working and the page moves on by itself when done, and
// its button is disabled so it is not sent twice. Without it the form posts as any other, and the
// browser shows that the page is loading. Listened for on the document, so a form the live status
// script put in place later is covered too. No build step: served as it is written.
;(() => {
  document.addEventListener('submit', (event) => {
    const form = event.target
    if (!(form instanceof HTMLFormElement) || !form.dataset.busy || event.defaultPrevented) return
    const status = document.getElementById(form.dataset.busy)
    if (!status) return
    // After the form's data is taken: a disabled button is left out of it.
    setTimeout(() => {
      for (const button of form.querySelectorAll('button[type="submit"]')) button.disabled = true
      status.textContent =
        'Submitting: the records are being checked and stored. This page moves on by itself: to the answer, or for a large batch to a page that shows the submit’s progress.'
    }, 0)
  })
})()
