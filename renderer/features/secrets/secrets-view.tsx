// The Secrets screen: the user's secret store (names and values entered here) that Code nodes are
// granted by name. Values go one way: typed into a password field and sent with secrets.set; main
// never answers with one (secrets.list names what is stored), so the list shows each as masked,
// with Replace and Delete (which asks first: a node granted that secret fails without it).

import { useId, useState, type FormEvent } from 'react';
import { SecretNameSchema, SecretValueSchema } from '../../../shared/contract/secret-schemas.ts';
import { useContractQuery } from '../../api/client-context.tsx';
import { useContractMutation } from '../../api/use-contract-mutation.ts';
import { FailureText } from '../../ui/failure-text.tsx';

const MASK = '••••••••';

const STORAGE_TEXT = {
  'os-keychain': "Values are encrypted with this computer's keychain before they are written to the data directory.",
  'owner-only-file': 'Values are kept in the data directory in a file only your user account can read (secrets/secrets.json).',
} as const;

export function SecretsView() {
  const list = useContractQuery('secrets.list', {});
  const id = useId();
  return (
    <div className="split-even">
      <section className="panel" aria-labelledby={`${id}-h`}>
        <h2 id={`${id}-h`}>Secrets</h2>
        <p>
          A Code node granted a secret by name reads its value with <code>getSecret(&quot;NAME&quot;)</code> when it runs. Values are never shown again once
          saved: replace one to change it.
        </p>
        {list.data && <p className="muted small">{STORAGE_TEXT[list.data.storage]}</p>}
        <FailureText error={list.error} />
        {list.data &&
          (list.data.names.length === 0 ? (
            <p className="empty">No secrets saved yet.</p>
          ) : (
            <ul className="cards secret-list" aria-label="Saved secrets">
              {list.data.names.map((name) => (
                <SecretRow key={name} name={name} />
              ))}
            </ul>
          ))}
      </section>
      <AddSecret />
    </div>
  );
}

function SecretRow({ name }: { name: string }) {
  const [mode, setMode] = useState<'view' | 'replace' | 'delete'>('view');
  const [value, setValue] = useState('');
  const set = useContractMutation('secrets.set');
  const remove = useContractMutation('secrets.delete');
  const id = useId();
  const valueCheck = SecretValueSchema.safeParse(value);
  const replace = (event: FormEvent) => {
    event.preventDefault();
    if (!valueCheck.success) return;
    set.mutate({ name, value }, { onSuccess: () => (setValue(''), setMode('view')) });
  };
  return (
    <li className="card" aria-label={`Secret ${name}`}>
      <div className="card-head">
        <span>
          <code>{name}</code>{' '}
          <span className="muted" aria-label="value hidden">
            {MASK}
          </span>{' '}
          {set.isSuccess && mode === 'view' && (
            <span role="status" className="ok-text small">
              Replaced.
            </span>
          )}
        </span>
        {mode === 'view' && (
          <span className="row">
            <button type="button" onClick={() => setMode('replace')}>
              Replace {name}
            </button>
            <button type="button" onClick={() => setMode('delete')}>
              Delete {name}
            </button>
          </span>
        )}
      </div>
      {mode === 'replace' && (
        <form className="row" onSubmit={replace}>
          <label htmlFor={`${id}-v`}>New value for {name}</label>
          <input id={`${id}-v`} type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} />
          <button type="submit" className="primary" disabled={!valueCheck.success || set.isPending}>
            Save {name}
          </button>
          <button type="button" onClick={() => (setValue(''), setMode('view'))}>
            Cancel
          </button>
        </form>
      )}
      {mode === 'delete' && (
        <div role="alertdialog" aria-label={`Delete ${name}?`} className="banner banner-warn">
          <p>Delete {name}? Nodes granted it will fail when they ask for it, until you save it again. Its value cannot be recovered.</p>
          <div className="row">
            <button type="button" className="primary" disabled={remove.isPending} onClick={() => remove.mutate({ name })}>
              Delete {name} for good
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Keep {name}
            </button>
          </div>
        </div>
      )}
      <FailureText error={set.error} prefix="Saving failed:" />
      <FailureText error={remove.error} prefix="Deleting failed:" />
    </li>
  );
}

function AddSecret() {
  const list = useContractQuery('secrets.list', {});
  const set = useContractMutation('secrets.set');
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const id = useId();
  const nameCheck = SecretNameSchema.safeParse(name);
  const valueCheck = SecretValueSchema.safeParse(value);
  const exists = list.data?.names.includes(name) === true;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!nameCheck.success || !valueCheck.success || exists) return;
    set.mutate(
      { name, value },
      {
        onSuccess: (answer) => {
          setSaved(`Saved ${answer.name}.`);
          setName('');
          setValue('');
        },
      },
    );
  };
  return (
    <section className="panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Add a secret</h2>
      <form onSubmit={submit} className="grid-form">
        <label htmlFor={`${id}-n`}>Name</label>
        <input
          id={`${id}-n`}
          value={name}
          placeholder="API_TOKEN"
          autoComplete="off"
          aria-invalid={name !== '' && !nameCheck.success}
          onChange={(e) => (setSaved(undefined), setName(e.target.value))}
        />
        {name !== '' && !nameCheck.success && <p className="warn-text small">{nameCheck.error.issues[0]?.message}</p>}
        {exists && <p className="warn-text small">{name} is already saved; use Replace beside it to change its value.</p>}
        <label htmlFor={`${id}-v`}>Value</label>
        <input id={`${id}-v`} type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} />
        <div className="actions">
          <button type="submit" className="primary" disabled={!nameCheck.success || !valueCheck.success || exists || set.isPending}>
            Save secret
          </button>
        </div>
      </form>
      {saved && (
        <p role="status" className="ok-text">
          {saved}
        </p>
      )}
      <FailureText error={set.error} prefix="Saving failed:" />
    </section>
  );
}
