// The analytics section's views as the console and the desk import them (src/web/dashboard/).
export { dashboardBody, PERIODS, type Period } from './dashboard/views.ts';
