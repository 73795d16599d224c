/** Small shared pieces: money, times, errors, a confirmation dialog, an action button, a labelled field (lists and paging: list.tsx). */
import { useState, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Confirm } from './dialog';
import { recoverFocus } from './focus';
import { useCan, type OperationId } from './session';

export { Confirm } from './dialog';

/** Minor units (digit string) → "1 500.00". */
export function money(minor: string | undefined, exponent = 2): string {
  if (minor === undefined || minor === '') return '';
  const negative = minor.startsWith('-');
  const digits = (negative ? minor.slice(1) : minor).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
  return `${negative ? '-' : ''}${whole}.${digits.slice(-exponent)}`;
}

export function when(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

export function age(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  return `${Math.floor(seconds / 86400)} d ${Math.floor((seconds % 86400) / 3600)} h`;
}

export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {error instanceof Error ? error.message : String(error)}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return <p aria-busy="true">Loading {what}…</p>;
}

/**
 * A button for one operation: hidden when the role may not call it (the server's table), an
 * optional confirmation, the API's message when refused, every query refreshed when done. While
 * the call runs the button is aria-disabled, not disabled, so the focus the dialog gave back stays
 * on it; when the refreshed page no longer shows it, focus goes to the heading.
 */
export function Action<T>({
  op,
  label,
  run,
  confirm,
  onDone,
  disabled,
  className,
}: {
  op: OperationId;
  label: string;
  run: () => Promise<T>;
  confirm?: { title: string; text: ReactNode; label: string; tone?: 'primary' | 'danger' };
  onDone?: (result: T) => void;
  disabled?: boolean;
  className?: string;
}) {
  const can = useCan();
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const mutation = useMutation({
    mutationFn: run,
    onSuccess: async (result) => {
      onDone?.(result);
      await queryClient.invalidateQueries();
      recoverFocus();
    },
  });
  if (!can(op)) return null;
  const start = () => {
    if (mutation.isPending) return;
    if (confirm) setAsking(true);
    else mutation.mutate();
  };
  return (
    <span className="action">
      <button type="button" className={className} disabled={disabled} aria-disabled={mutation.isPending || undefined} onClick={start}>
        {mutation.isPending ? `${label}…` : label}
      </button>
      {mutation.isSuccess && (
        <span role="status" className="done">
          Done
        </span>
      )}
      <ErrorText error={mutation.error} />
      {asking && confirm && (
        <Confirm
          title={confirm.title}
          confirmLabel={confirm.label}
          tone={confirm.tone ?? (className === 'danger' ? 'danger' : 'primary')}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            mutation.mutate();
          }}
        >
          {confirm.text}
        </Confirm>
      )}
    </span>
  );
}

export function Field({ label, children, hint, hideLabel }: { label: string; children: ReactNode; hint?: string; hideLabel?: boolean }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is `children`: every caller passes its input, select or textarea
    <label className="field">
      <span className={hideLabel ? 'sr-only' : undefined}>{label}</span>
      {children}
      {hint && <small>{hint}</small>}
    </label>
  );
}

/** A form's submit button, disabled while its mutation runs; then `done` (role="status") or the API's message. */
export function Submit({ label, mutation, done }: { label: string; mutation: { isPending: boolean; isSuccess: boolean; error: unknown }; done: ReactNode }) {
  return (
    <>
      <button type="submit" className="primary" disabled={mutation.isPending}>
        {label}
      </button>
      {mutation.isSuccess && (
        <span role="status" className="done">
          {done}
        </span>
      )}
      <ErrorText error={mutation.error} />
    </>
  );
}

/**
 * One line of a dialog's promise: what an object's status will be after the move, as the API
 * answered it from the state table ("becomes X", or "stays X" when the move leaves it).
 * data-after carries the status, so a test can hold it against the move's real outcome.
 */
export function StatusAfter({ subject, now, after, kind }: { subject: ReactNode; now: string; after: string; kind: string }) {
  return (
    <span className="status-after" data-after={after} data-kind={kind}>
      {subject} {after === now ? 'stays' : 'becomes'} <strong>{after}</strong>
      {after === now ? '' : ` (now ${now})`}
    </span>
  );
}
