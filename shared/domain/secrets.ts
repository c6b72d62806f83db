/**
 * Values the service must keep but never show: object store credentials, signing secrets, the
 * dashboard's credential. They are sealed (authenticated encryption) bound to a context string
 * naming their owner, so a sealed value copied onto another record does not open there.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): Promise<string>;
  open(sealed: string, context: string): Promise<string>;
}
