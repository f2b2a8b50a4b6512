// Where the built pieces the window loads live, and the one URL the window is allowed to show.
// Main compares every IPC sender's frame URL with this, so the paths are computed in one place.

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { assetPath } from '../platform/assets.ts';

// Through the asset registry: the repo's out/ in dev, the staged copies in the packaged app.
export const RENDERER_INDEX = path.join(assetPath('renderer'), 'index.html');
export const PRELOAD_BUNDLE = assetPath('preload');

/** The app page's URL without query or fragment. */
export const APP_PAGE_URL = pathToFileURL(RENDERER_INDEX).href;

/** True when `url` is our app page (any fragment or query), nothing else. */
export function isAppPageUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    parsed.search = '';
    return parsed.href === APP_PAGE_URL;
  } catch {
    return false;
  }
}
