/**
 * The bulk import's limits (D14, D17.6): pure, so the integration route's schema states them
 * without importing the service that enforces them (issue 29, item 1).
 */

/** D14: 1-1000 contacts per request (and per CSV batch: both go through the bulk import service). */
export const BULK_LIMITS = { contactsMax: 1000 } as const;

/** D17.6: list names per item, and new list names per request, so an import cannot create lists without bound. */
export const IMPORT_LIST_LIMITS = { perItem: 20, perRequest: 100 } as const;
