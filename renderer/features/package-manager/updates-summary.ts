// The sentence above the Updates list. It says "no installed pack has a newer version" only when
// the registry answered for every registry pack; when it answered for none it says it could not
// check (and how to retry), and when it answered for some it counts the ones it could not check.

import type { UpdateCheck } from '../../../shared/contract/pack-schemas.ts';

export function updatesSummary(checks: readonly Pick<UpdateCheck, 'state'>[]): { checked: boolean; text: string } {
  const withUpdate = checks.filter((c) => c.state === 'update').length;
  const answered = checks.filter((c) => c.state === 'update' || c.state === 'current').length;
  const unavailable = checks.filter((c) => c.state === 'unavailable').length;
  const retry = 'Check that the registry is reachable (Agent & settings names it), then check again.';
  if (unavailable > 0 && answered === 0)
    return { checked: false, text: `the registry could not be reached, so it is not known whether any installed pack has a newer version. ${retry}` };
  if (answered === 0 && checks.length > 0)
    return {
      checked: true,
      text: 'no installed pack comes from the registry; a pack installed from a tarball (as the shipped ones are) is updated by installing a newer tarball.',
    };
  const found =
    withUpdate === 0 ? 'no installed pack has a newer version' : `${withUpdate} installed ${withUpdate === 1 ? 'pack has' : 'packs have'} a newer version`;
  if (unavailable === 0) return { checked: true, text: `${found}.` };
  return { checked: true, text: `${found}; ${unavailable} ${unavailable === 1 ? 'pack' : 'packs'} could not be checked (see below). ${retry}` };
}
