// The failure tag's tooltip is the code's general sentence from the closed code set.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ContractFailure } from '../api/client-context.tsx';
import { FailureText } from './failure-text.tsx';

describe('FailureText', () => {
  it('shows the message, and the code with its explain() sentence as the tooltip', () => {
    const html = renderToStaticMarkup(<FailureText error={new ContractFailure({ ok: false, code: 'busy', message: 'Wait.' })} />);
    expect(html).toBe(
      '<p role="alert" class="failure">Wait. <code class="code-tag" title="Another install, update or uninstall is running on this install root; wait for it to finish.">busy</code></p>',
    );
  });
});
