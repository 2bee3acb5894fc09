/**
 * Keeps one line of text (an amount) within the width of its parent: the CSS font size is the
 * largest it may be, and when the text is wider than the parent's content box it is set smaller
 * in proportion, measured with the fonts this device really has. Runs again when the parent is
 * resized (a rotated or resized screen) and when the text or the language changes.
 */
import { useLayoutEffect, type RefObject } from 'react';

export function useFit(ref: RefObject<HTMLElement | null>, enabled: boolean, deps: unknown[]): void {
  useLayoutEffect(() => {
    const el = ref.current;
    const box = el?.parentElement;
    if (!enabled || !el || !box) return;
    const fit = () => {
      el.style.fontSize = '';
      const s = getComputedStyle(box);
      const room = box.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
      const need = el.getBoundingClientRect().width;
      if (room > 0 && need > room) {
        const size = parseFloat(getComputedStyle(el).fontSize);
        el.style.fontSize = `${Math.floor(size * (room / need) * 0.98 * 10) / 10}px`;
      }
    };
    fit();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(fit);
    observer.observe(box);
    return () => observer.disconnect();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller's deps (what changes the text's width) are the effect's inputs
  }, [enabled, ...deps]);
}
