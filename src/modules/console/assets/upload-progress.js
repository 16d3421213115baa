// Upload progress for a file form (the NAT zip import, a reference-data release): an enhancement only.
// Without it the form posts as any other and the next page appears when the server has finished.
// With it the form is sent by XMLHttpRequest, whose upload events give the bytes sent: a progress bar
// and a status line (role=status, so a screen reader says it) show them, then that the server is
// reading the files. The server's answer is then shown as if the form had posted: a redirect is
// followed to its page, and a page answered in place (the form with a problem) replaces this one's
// content, focus moved to its first alert. No build step: served as it is written.
;(() => {
  const enhance = () => {
    for (const form of document.querySelectorAll('form[data-upload-progress]')) enhanceForm(form)
  }

  function enhanceForm(form) {
    const status = document.getElementById(form.dataset.uploadProgress)
    if (!status) return
    form.addEventListener('submit', (event) => {
      if (!form.checkValidity()) return
      event.preventDefault()
      const button = form.querySelector('button[type="submit"]')
      if (button) button.disabled = true
      const bar = document.createElement('progress')
      bar.max = 100
      bar.value = 0
      bar.setAttribute('aria-label', 'Upload')
      const text = document.createElement('p')
      status.replaceChildren(bar, text)
      status.hidden = false
      const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`
      let said = -1

      const request = new XMLHttpRequest()
      request.open('POST', form.action)
      request.responseType = 'document'
      request.upload.addEventListener('progress', (progress) => {
        if (!progress.lengthComputable) return
        const percent = Math.floor((progress.loaded / progress.total) * 100)
        bar.value = percent
        // Said in steps of ten, so a screen reader is not flooded.
        if (Math.floor(percent / 10) !== said) {
          said = Math.floor(percent / 10)
          text.textContent = `Uploading: ${percent}% of ${mib(progress.total)} sent.`
        }
      })
      request.upload.addEventListener('load', () => {
        bar.removeAttribute('value') // indeterminate: the server is at work
        bar.setAttribute('aria-label', 'Import')
        text.textContent =
          'Uploaded. The service is reading the files and storing the records; the next page appears when it has finished.'
      })
      request.addEventListener('load', () => {
        const answer = request.response
        if (request.responseURL && new URL(request.responseURL).pathname !== new URL(form.action).pathname) {
          window.location.assign(request.responseURL)
          return
        }
        if (!answer?.body) {
          form.submit() // not a page: let the browser post the form itself
          return
        }
        document.title = answer.title
        document.body.replaceWith(document.importNode(answer.body, true))
        enhance() // the answered page's own form, when it has one
        const alert = document.querySelector('[role="alert"]')
        if (alert) {
          alert.tabIndex = -1
          alert.focus()
        }
      })
      request.addEventListener('error', () => {
        text.textContent = 'The upload stopped (the connection was lost). Check the connection and send the form again.'
        if (button) button.disabled = false
      })
      request.send(new FormData(form))
    })
  }

  enhance()
})()
