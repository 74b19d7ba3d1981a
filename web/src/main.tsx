import '@mantine/core/styles.css';
import '@mantine/charts/styles.css';
import './app.css';
import { createTheme, MantineProvider } from '@mantine/core';
import { setNonce } from 'get-nonce';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './App.tsx';
import { SessionProvider } from './session.tsx';

const theme = createTheme({ primaryColor: 'indigo', defaultRadius: 'md' });

// The Content-Security-Policy admits only <style> elements that carry this page load's nonce.
const styleNonce = document.querySelector('meta[name="style-nonce"]')?.getAttribute('content') ?? '';
// Modals lock scrolling with a <style> from react-style-singleton, which takes its nonce from here.
setNonce(styleNonce);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} getStyleNonce={() => styleNonce} defaultColorScheme="light">
      <BrowserRouter>
        <SessionProvider>
          <App />
        </SessionProvider>
      </BrowserRouter>
    </MantineProvider>
  </StrictMode>,
);
