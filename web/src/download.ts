/** Saves `value` as a JSON file through the browser's own download (no server round trip for the file itself). */
export function downloadJson(fileName: string, value: unknown): void {
  downloadBlob(fileName, new Blob([JSON.stringify(value, null, 2) + '\n'], { type: 'application/json' }));
}

/** Saves a file the dashboard holds (one the API answered, such as the contacts' CSV) through the browser's own download. */
export function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // After the click has handed the file to the browser.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
