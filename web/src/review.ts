/**
 * The Review page's keys: 1–4 press Again, Hard, Good and Easy, D presses Discard. Each is the
 * button's own form post (the page works the same without this script); a key does nothing while
 * typing in a field, with a modifier held, or once a rating is on its way.
 */
const form = document.querySelector<HTMLFormElement>('form.review-rating');

if (form) {
  let sent = false;
  form.addEventListener('submit', () => {
    sent = true;
  });
  document.addEventListener('keydown', (event) => {
    if (sent || event.repeat || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof Element && event.target.closest('input, textarea, select, [contenteditable]')) return;
    const button = form.querySelector<HTMLButtonElement>(`button[data-key="${CSS.escape(event.key.toLowerCase())}"]`);
    if (!button) return;
    event.preventDefault();
    button.click();
  });
}
