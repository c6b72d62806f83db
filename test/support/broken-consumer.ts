/** A handler module that cannot load, for the local runtime's start to refuse. */
export const handler = (() => {
  throw new Error('this module cannot load');
})();
