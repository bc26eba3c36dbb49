/** What the person types (the API's `confirm`, the Account page's box) to delete their account. */
export const ACCOUNT_DELETE_CONFIRMATION = 'delete my account';
