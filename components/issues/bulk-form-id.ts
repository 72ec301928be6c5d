/** The id of the list's bulk form; rows' checkboxes join it with the `form` attribute. */
export const BULK_FORM = "bulk-issues";
