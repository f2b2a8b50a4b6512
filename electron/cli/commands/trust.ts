// `sandbox-packs trust NAME [--dry-run]`: for a register or hybrid pack, packs.trust — consent to
// the exact installed artifact (name, version, integrity) and run its install scripts; for any
// pack, trust for agents (packs.decideUse; `untrust` revokes it). --dry-run (packs.trustDryRun)
// prints the literal scripts first.
import type { CliCommand } from '../command.ts';
import { lockWaitOf, onlyPositional, parseCliArgs, WAIT_OPTIONS, ROOT_OPTIONS, rootOf } from '../args.ts';
import { withCliServices } from '../cli-services.ts';
import { finish, reconcileFirst } from '../cli-support.ts';
import { usageText } from '../usage.ts';
import { scriptsRanText } from './rebuild.ts';
import { trustForUse, USE_TRUST_ALLOWS } from '../../../shared/contract/pack-state.ts';

const OPTIONS = {
  'dry-run': { kind: 'boolean', help: 'print what trusting would allow and run, and change nothing' },
  ...ROOT_OPTIONS,
  ...WAIT_OPTIONS,
} as const;

export const trust: CliCommand = {
  name: 'trust',
  summary: 'Trust a pack for agents; for host code, its exact artifact and install scripts (--dry-run shows them)',
  options: OPTIONS,
  usage: usageText({ synopsis: 'trust NAME', options: OPTIONS }),
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, OPTIONS);
    const name = onlyPositional(positionals, 'pack name');
    const root = rootOf(values.root, io);
    const lockWaitMs = lockWaitOf(values.wait);
    if (values['dry-run']) {
      return withCliServices(root, io, {}, async (services) => {
        const plan = await services.call('packs.trustDryRun', { name });
        const listed = plan.ok ? await services.call('packs.list', {}) : undefined;
        const installMode = listed?.ok ? listed.value.packs.find((p) => p.name === name)?.installMode : undefined;
        return finish(
          io,
          values.json,
          plan,
          (o) => {
            const head = `Trusting ${o.name}@${o.version} (${installMode ? `${installMode}, ` : ''}${o.integrity}) would allow its host code to run with full app privileges, and run:`;
            const lines = o.scripts.map((s) => `  ${s.own ? o.name : `${s.package}@${s.version} (dependency)`} ${s.event}: ${s.command}`);
            return [head, ...(lines.length ? lines : ['  (no install scripts)'])].join('\n');
          },
          (o) => ({ ...o, ...(installMode ? { installMode } : {}) }),
        );
      });
    }
    await reconcileFirst(root, io);
    const result = await withCliServices(root, io, { lockWaitMs }, async (services) => {
      // Trust for agents is the user's decision for any pack; host code also needs its consent and setup.
      const listed = await services.call('packs.list', {});
      const row = listed.ok ? listed.value.packs.find((p) => p.name === name) : undefined;
      if (row?.installMode !== 'sandbox-only') {
        const trusted = await services.call('packs.trust', { name });
        if (!trusted.ok || trustForUse(trusted.value) === 'trusted') return trusted;
      }
      return services.call('packs.decideUse', { name, trusted: true });
    });
    return finish(io, values.json, result, (o) =>
      o.installMode === 'sandbox-only'
        ? `Trusted ${o.name}@${o.version} for agents: ${USE_TRUST_ALLOWS} Sandbox-only packs run no host code and no install scripts; it is active.`
        : `Trusted ${o.name}@${o.version}; ${scriptsRanText(o, 'it has no install scripts')}. Active, and trusted for agents.`,
    );
  },
};
