/** A refusal of the payer API, answered with this HTTP status and `{status: "fail", msg}`. */
export class SandboxError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
  ) {
    super(message);
  }
}
