// The package picker's combobox keys, per the WAI-ARIA APG combobox-with-listbox pattern.
import { describe, expect, it } from 'vitest';
import { comboboxKey } from './combobox-keys.ts';

describe('comboboxKey', () => {
  it('opens on ArrowDown with no option active (Alt+Down too), then moves down, wrapping', () => {
    expect(comboboxKey('ArrowDown', false, -1, 5)).toEqual({ kind: 'move', active: -1 });
    expect(comboboxKey('ArrowDown', true, -1, 5)).toEqual({ kind: 'move', active: 0 });
    expect(comboboxKey('ArrowDown', true, 4, 5)).toEqual({ kind: 'move', active: 0 });
    expect(comboboxKey('ArrowDown', true, 2, 5, true)).toEqual({ kind: 'move', active: 2 });
  });

  it('opens on ArrowUp at the last option and moves up, wrapping; Home and End jump while open', () => {
    expect(comboboxKey('ArrowUp', false, -1, 5)).toEqual({ kind: 'move', active: 4 });
    expect(comboboxKey('ArrowUp', true, 0, 5)).toEqual({ kind: 'move', active: 4 });
    expect(comboboxKey('ArrowUp', true, -1, 5)).toEqual({ kind: 'move', active: 4 });
    expect(comboboxKey('Home', true, 3, 5)).toEqual({ kind: 'move', active: 0 });
    expect(comboboxKey('End', true, 0, 5)).toEqual({ kind: 'move', active: 4 });
    expect(comboboxKey('Home', false, -1, 5)).toEqual({ kind: 'none' });
    expect(comboboxKey('ArrowDown', true, -1, 0)).toEqual({ kind: 'move', active: -1 });
  });

  it('picks the active option on Enter, or the only match; Escape closes, then clears', () => {
    expect(comboboxKey('Enter', true, 2, 5)).toEqual({ kind: 'pick', index: 2 });
    expect(comboboxKey('Enter', true, -1, 5)).toEqual({ kind: 'none' });
    expect(comboboxKey('Enter', false, -1, 1)).toEqual({ kind: 'pick', index: 0 });
    expect(comboboxKey('Escape', true, 2, 5)).toEqual({ kind: 'close' });
    expect(comboboxKey('Escape', false, -1, 5)).toEqual({ kind: 'clear' });
    expect(comboboxKey('a', true, 2, 5)).toEqual({ kind: 'none' });
  });
});
