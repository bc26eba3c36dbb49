/**
 * The Copy buttons beside a read-only field (a token shown once, the MCP server's address): copies
 * the field's value and says so. Without the Clipboard API the button stays hidden.
 */

for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
  const id = button.dataset.copy ?? '';
  const field = document.getElementById(id) as HTMLInputElement | null;
  const said = document.querySelector<HTMLElement>(`[data-copied="${id}"]`);
  if (!field || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      if (said) said.textContent = 'Copied.';
    } catch {
      field.select();
      if (said) said.textContent = 'Could not copy: the text is selected, copy it with Ctrl+C or ⌘C.';
    }
  });
}
