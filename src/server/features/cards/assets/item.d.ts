/** This browser script as text (imported with `{ type: "text" }`). */
declare const text: string;
export default text;
