// A run's value on screen, bounded whatever its size (result-shape.ts says how it is classified
// and cut): small values whole as before; a long string's head with "Show more"; rows as a paged
// table; anything else large as a collapsible tree that opens a node's entries a hundred at a
// time. Each large view says the result's size and offers the whole of it as a download.
// Invariant: the DOM holds a bounded slice of the value, never all of it.

import { useMemo, useState } from 'react';
import { displayText } from '../../../shared/protocol/display-text.ts';
import {
  cellText,
  count,
  downloadOf,
  resultShape,
  rowPage,
  sizeText,
  stringHead,
  STRING_STEP,
  summaryOf,
  TREE_STEP,
  type ResultShape,
} from './result-shape.ts';

export function ResultValue({ value, fileStem }: { value: unknown; fileStem: string }) {
  const shape = useMemo(() => resultShape(value), [value]);
  if (shape.kind === 'small') {
    return (
      <pre className="value" aria-label="Result value">
        {displayText(shape.text, { multiline: true })}
      </pre>
    );
  }
  return <LargeResult shape={shape} value={value} fileStem={fileStem} />;
}

function LargeResult({ shape, value, fileStem }: { shape: Exclude<ResultShape, { kind: 'small' }>; value: unknown; fileStem: string }) {
  const jsonBytes = useMemo(() => (shape.kind === 'string' ? undefined : new TextEncoder().encode(JSON.stringify(value)).length), [shape, value]);
  const download = () => {
    const file = downloadOf(value);
    const url = URL.createObjectURL(new Blob([file.text], { type: file.type }));
    try {
      const link = document.createElement('a');
      link.href = url;
      link.download = `${fileStem}-result.${file.extension}`;
      link.click();
    } finally {
      // The click has started the download; the URL is not needed after this task.
      setTimeout(() => URL.revokeObjectURL(url), 0);
    }
  };
  return (
    <div className="large-result">
      <p className="small row">
        <span>{sizeText(shape, jsonBytes)}</span>
        <button type="button" onClick={download}>
          Download the whole result
        </button>
      </p>
      {shape.kind === 'string' && <StringHead value={shape.value} />}
      {shape.kind === 'rows' && <RowsTable rows={shape.rows} columns={shape.columns} />}
      {shape.kind === 'tree' && (
        <ul className="result-tree" aria-label="Result value">
          <TreeEntries value={shape.value} />
        </ul>
      )}
    </div>
  );
}

function StringHead({ value }: { value: string }) {
  const [shown, setShown] = useState(STRING_STEP);
  const head = stringHead(value, shown);
  return (
    <>
      <pre className="value result-capped" aria-label="Result value">
        {displayText(head, { multiline: true })}
      </pre>
      {head.length < value.length && (
        <p className="small row">
          <span className="muted">
            Showing {count(head.length)} of {count(value.length)} characters.
          </span>
          <button type="button" onClick={() => setShown(shown + STRING_STEP)}>
            Show more
          </button>
        </p>
      )}
    </>
  );
}

function RowsTable({ rows, columns }: { rows: readonly Record<string, unknown>[]; columns: readonly string[] }) {
  const [start, setStart] = useState(0);
  const page = rowPage(rows.length, start);
  const pages = rows.length > page.end - page.start;
  return (
    <>
      <div className="result-table-wrap">
        <table className="result-table" aria-label="Result rows">
          <thead>
            <tr>
              <th scope="col">#</th>
              {columns.map((c) => (
                <th key={c} scope="col">
                  {displayText(c)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.slice(page.start, page.end).map((row, i) => (
              <tr key={page.start + i}>
                <td className="muted">{page.start + i}</td>
                {columns.map((c) => (
                  <td key={c}>{displayText(cellText(row[c]))}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="small row">
        <span>{page.label}</span>
        {pages && (
          <>
            <button type="button" onClick={() => setStart(0)} disabled={page.start === 0}>
              First rows
            </button>
            <button type="button" onClick={() => setStart(page.start - (page.end - page.start))} disabled={page.start === 0}>
              Previous rows
            </button>
            <button type="button" onClick={() => setStart(page.end)} disabled={page.end >= rows.length}>
              Next rows
            </button>
            <button type="button" onClick={() => setStart(rows.length)} disabled={page.end >= rows.length}>
              Last rows
            </button>
          </>
        )}
      </p>
    </>
  );
}

/** The entries of one object or array, TREE_STEP at a time; a nested one opens on click (and only then renders). */
function TreeEntries({ value }: { value: object }) {
  const [shown, setShown] = useState(TREE_STEP);
  const entries = useMemo(() => (Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value)), [value]);
  const rest = entries.length - shown;
  return (
    <>
      {entries.slice(0, shown).map(([key, child]) => (
        <TreeNode key={key} name={key} value={child} />
      ))}
      {rest > 0 && (
        <li>
          <button type="button" className="link" onClick={() => setShown(shown + TREE_STEP)}>
            Show {count(Math.min(TREE_STEP, rest))} more of {count(rest)}
          </button>
        </li>
      )}
    </>
  );
}

function TreeNode({ name, value }: { name: string; value: unknown }) {
  const [open, setOpen] = useState(false);
  if (typeof value !== 'object' || value === null) {
    return (
      <li>
        <span className="tree-key">{displayText(name)}</span>: <code>{displayText(cellText(value))}</code>
      </li>
    );
  }
  return (
    <li>
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>
          <span className="tree-key">{displayText(name)}</span> <span className="muted">{summaryOf(value)}</span>
        </summary>
        {open && (
          <ul>
            <TreeEntries value={value} />
          </ul>
        )}
      </details>
    </li>
  );
}
