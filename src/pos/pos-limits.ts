import Type, { type TSchemaOptions } from 'typebox';
import { INT32_MAX, Int32, Str } from '../server/schemas.ts';

// Limits of the values Tableside passes on from a POS (bills, tables, closed orders) and from the
// POS type configuration. The API document declares them on the answers that carry such values, so
// they must hold where the values enter: the POS client's response schemas (pos.schemas.ts) and the
// POS_TYPES parser (pos-types.ts) refuse anything beyond them.

/** Any text a POS gives (ids, names, check numbers, statuses, payment methods): at most 200 characters. */
export const POS_TEXT_MAX = 200;
/** Tables of a venue, and tables of one order. */
export const POS_MAX_TABLES = 1000;
/** Checks of one order. */
export const POS_MAX_CHECKS = 1000;
/** Items of one check. */
export const POS_MAX_ITEMS = 1000;

/** A POS type code, as POS_TYPES accepts it (pos-types.ts). */
export const POS_CODE_PATTERN = '^[a-z0-9][a-z0-9_-]{0,39}$';

export const PosText = (opts: TSchemaOptions = {}) => Str(POS_TEXT_MAX, opts);
export const PosCode = (opts: TSchemaOptions = {}) => Type.String({ maxLength: 40, pattern: POS_CODE_PATTERN, ...opts });
/** An item quantity: any 32-bit integer (a POS may report returns as negative quantities). */
export const PosQuantity = (opts: TSchemaOptions = {}) => Int32(-INT32_MAX - 1, INT32_MAX, opts);
/** A party size: what the orders table's integer column holds. */
export const PosPartySize = (opts: TSchemaOptions = {}) => Int32(0, INT32_MAX, opts);
