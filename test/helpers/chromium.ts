// Debian's Chromium as the browser tests drive it (never a downloaded browser).
export const CHROMIUM = '/usr/bin/chromium';
// --no-sandbox: CI runs as root in a container; --disable-dev-shm-usage: a container's /dev/shm is 64 MB; the
// background-networking flags keep it from calling hosts this machine cannot reach.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];
