/**
 * The media library's limits: pure, so the upload route's schema states them without importing
 * the service that stores files (issue 29, item 1).
 */

/** The longest file name kept (the client's last path segment, control characters dropped). */
export const MEDIA_NAME_MAX = 255;
