/**
 * What the payer page can show of an order's free `extraInfo` (specification 2.1: "any or null,
 * JSON recommended"): a list of what was bought, and a note. Anything else in `extraInfo` is the
 * merchant's own business and is not shown.
 *
 * Understood shape (every field optional except an item's name):
 *
 *   { "items": [ { "name": "Latte", "quantity": 2, "amount": "36.00" }, … ], "note": "Table 4" }
 *
 * - the list is `items` (or `goods`), or `extraInfo` itself when it is an array;
 * - an item is an object with a non-empty string `name` (or `title`); items without one are skipped;
 * - `quantity` (or `qty`, `count`): a whole number from 1 to 99999, as a number or a digit string;
 * - `amount`: the line's total, a decimal string with at most two decimals (like `totalAmount`);
 *   without it, `price` (the price of one) times the quantity;
 * - `note` (or `remark`): a short text shown under the list.
 * `extraInfo` sent as a JSON string is read as the JSON it holds. At most MAX_SHOWN_ITEMS items are
 * listed; the rest are counted in `more`.
 */
import { AmountError, formatCents, parseDecimal } from './money';

export interface OrderItem {
  name: string;
  quantity?: number;
  /** The line's total as a decimal string ("36.00"). */
  amount?: string;
}

export interface OrderItems {
  items: OrderItem[];
  /** How many more recognised items there were than are listed. */
  more: number;
  note?: string;
}

export const MAX_SHOWN_ITEMS = 20;
const MAX_NAME = 80;
const MAX_NOTE = 140;
const MAX_QUANTITY = 99_999;
/** A line may not claim more than the largest order (1,000,000.00). */
const MAX_LINE_CENTS = 100_000_000;

/** The list and note the payer page shows, or undefined when `extraInfo` carries neither. */
export function readOrderItems(extraInfo: unknown): OrderItems | undefined {
  const info = typeof extraInfo === 'string' ? parseJson(extraInfo) : extraInfo;
  if (info === null || typeof info !== 'object') return undefined;
  const record = info as Record<string, unknown>;
  const list = Array.isArray(info) ? info : Array.isArray(record.items) ? record.items : Array.isArray(record.goods) ? record.goods : [];
  const items = list.map(readItem).filter((i): i is OrderItem => i !== undefined);
  const note = Array.isArray(info) ? undefined : cleanText(record.note ?? record.remark, MAX_NOTE);
  if (items.length === 0 && !note) return undefined;
  const shown: OrderItems = { items: items.slice(0, MAX_SHOWN_ITEMS), more: Math.max(0, items.length - MAX_SHOWN_ITEMS) };
  if (note) shown.note = note;
  return shown;
}

function readItem(raw: unknown): OrderItem | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const name = cleanText(r.name ?? r.title, MAX_NAME);
  if (!name) return undefined;
  const item: OrderItem = { name };
  const quantity = readQuantity(r.quantity ?? r.qty ?? r.count);
  if (quantity !== undefined) item.quantity = quantity;
  const amount = readCents(r.amount);
  const price = readCents(r.price);
  const line = amount ?? (price !== undefined ? price * (quantity ?? 1) : undefined);
  if (line !== undefined && line <= MAX_LINE_CENTS) item.amount = formatCents(line);
  return item;
}

function readQuantity(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,5}$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= MAX_QUANTITY ? n : undefined;
}

function readCents(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  try {
    return parseDecimal(v, { scale: 2, max: MAX_LINE_CENTS, allowZero: true });
  } catch (e) {
    if (e instanceof AmountError) return undefined;
    throw e;
  }
}

/** One line of plain text: control characters out, whitespace runs folded, clipped with an ellipsis. */
function cleanText(v: unknown, max: number): string | undefined {
  if (typeof v !== 'string') return undefined;
  const text = v
    // eslint-disable-next-line no-control-regex -- taking control characters out is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return undefined;
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
