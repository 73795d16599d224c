/**
 * The console's modal dialog: a native <dialog> opened with showModal (the rest of the page inert,
 * Escape cancels), named by its title and described by its body. Focus goes into it — its first
 * field, else its Cancel button — and, however it closes (Cancel, Escape, the confirming button),
 * back to the control that opened it, or to the page's heading when that control is gone.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { returnFocus } from './focus';

function Dialog({
  title,
  children,
  footer,
  onCancel,
}: {
  title: ReactNode;
  children: ReactNode;
  /** The buttons; the one marked data-cancel takes the focus when the body has no field. */
  footer: ReactNode;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement;
    if (!dialog.open) dialog.showModal();
    const first =
      dialog.querySelector<HTMLElement>('.dialog-body :is(input, select, textarea):not([disabled])') ?? dialog.querySelector<HTMLElement>('[data-cancel]');
    first?.focus();
    return () => {
      if (dialog.open) dialog.close();
      returnFocus(opener);
    };
  }, []);
  return (
    <dialog ref={ref} aria-labelledby={titleId} aria-describedby={bodyId} onCancel={onCancel}>
      <h2 id={titleId}>{title}</h2>
      <div id={bodyId} className="dialog-body">
        {children}
      </div>
      <div className="actions">{footer}</div>
    </dialog>
  );
}

/** A confirmation: what will happen (children), Cancel, and the confirming button. */
export function Confirm({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  tone = 'primary',
}: {
  title: ReactNode;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  tone?: 'primary' | 'danger';
}) {
  return (
    <Dialog
      title={title}
      onCancel={onCancel}
      footer={
        <>
          <button type="button" data-cancel onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className={tone} onClick={onConfirm}>
            {confirmLabel}
          </button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}
