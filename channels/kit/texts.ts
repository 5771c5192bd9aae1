/**
 * Words every channel shows the same way. `channels/kit/` is shared by the adapters and is
 * platform-free: it imports no platform SDK and no channel (`npm run deps` checks).
 */

/** The answer to a press on a button the service cannot read. */
export const staleButtonText = "This button is no longer valid.";

/** The answer when handling a press or a command failed and trying again may help. */
export const failedText = "Something went wrong; please try again.";
