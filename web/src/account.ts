/**
 * The Account page's "Delete account": the typed confirmation goes to the per-user API's
 * DELETE /api/v2/me (its `confirm`) with the session's CSRF token; once deleted, the sign-in page.
 */

const CSRF_HEADER = 'X-CSRF-Token';

function setUpDelete(form: HTMLFormElement): void {
  const error = form.querySelector<HTMLElement>('[data-account-delete-error]');
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!error || !button) return;
    error.hidden = true;
    button.disabled = true;
    const confirm = new FormData(form).get('confirm');
    try {
      const response = await fetch(form.dataset.api ?? '', {
        method: 'DELETE',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', [CSRF_HEADER]: form.dataset.csrf ?? '' },
        body: JSON.stringify({ confirm }),
      });
      if (response.status === 204) {
        window.location.assign(form.dataset.done ?? '/');
        return;
      }
      error.textContent =
        response.status === 422
          ? 'Type the words exactly as shown to confirm.'
          : `The account was not deleted: the server answered ${response.status}. Try again.`;
    } catch {
      error.textContent = 'The account was not deleted: the server could not be reached. Try again.';
    }
    error.hidden = false;
    button.disabled = false;
  });
}

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-account-delete]')) setUpDelete(form);
