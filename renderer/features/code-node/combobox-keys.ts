// The keys of the package picker's combobox (WAI-ARIA APG "combobox with listbox popup"), as a
// pure function of the key, whether the popup is open, the active option and the option count, so
// the rules are tested without a DOM. Arrow keys open the popup and move the active option
// (wrapping), Home/End jump to the ends while it is open, Enter picks the active option (or the
// only match), Escape closes the popup and, when it is already closed, clears the text.

export type ComboboxAction =
  /** Open or stay open with this option active (-1: none). */
  | { readonly kind: 'move'; readonly active: number }
  | { readonly kind: 'pick'; readonly index: number }
  | { readonly kind: 'close' }
  | { readonly kind: 'clear' }
  /** Not the combobox's key: let the input have it. */
  | { readonly kind: 'none' };

export function comboboxKey(key: string, open: boolean, active: number, count: number, altKey = false): ComboboxAction {
  switch (key) {
    case 'ArrowDown':
      if (!open || altKey) return { kind: 'move', active: open ? active : -1 };
      return { kind: 'move', active: count === 0 ? -1 : (active + 1) % count };
    case 'ArrowUp':
      if (!open) return { kind: 'move', active: count - 1 };
      return { kind: 'move', active: count === 0 ? -1 : active <= 0 ? count - 1 : active - 1 };
    case 'Home':
      return open && count > 0 ? { kind: 'move', active: 0 } : { kind: 'none' };
    case 'End':
      return open && count > 0 ? { kind: 'move', active: count - 1 } : { kind: 'none' };
    case 'Enter':
      if (open && active >= 0 && active < count) return { kind: 'pick', index: active };
      return count === 1 ? { kind: 'pick', index: 0 } : { kind: 'none' };
    case 'Escape':
      return open ? { kind: 'close' } : { kind: 'clear' };
    default:
      return { kind: 'none' };
  }
}
