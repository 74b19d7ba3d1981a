declare module 'mjml-browser';
